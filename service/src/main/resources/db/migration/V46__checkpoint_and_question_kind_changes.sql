-- The change stream gains checkpoint.written (docs/changes.md), and attention.opened says the
-- request's kind (V21: null for a worker's question, the system's reason otherwise).

create function changes_checkpoint_written() returns trigger
    language plpgsql as
$$
begin
    -- The checkpoint's data is not copied: it may be large, and GET /items/{id}/checkpoints has it.
    insert into change_pending (type, item_id, lease_id, epoch, queue, data)
    select 'checkpoint.written', c.item_id, c.lease_id, c.epoch, w.queue,
           jsonb_build_object('checkpointSeq', c.seq, 'workerId', c.worker_id)
    from written c join work_items w on w.id = c.item_id
    order by c.item_id, c.seq;
    return null;
end;
$$;

create trigger changes_checkpoint_written
    after insert on checkpoints
    referencing new table as written
    for each statement execute function changes_checkpoint_written();

create or replace function changes_attention_opened() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, lease_id, epoch, queue, data)
    select 'attention.opened', a.item_id, a.lease_id, a.epoch, w.queue,
           jsonb_build_object('attentionId', a.id, 'question', a.question, 'blocking', a.blocking,
                              'raisedBy', a.raised_by, 'workerId', a.worker_id, 'kind', a.kind)
    from opened a join work_items w on w.id = a.item_id
    order by a.id;
    return null;
end;
$$;
