-- The change stream's outbox (docs/changes.md; the decision and its alternatives: docs/adr, "change outbox").
--
-- Every change is written, in the transaction that makes it, by triggers on the tables that every
-- path already writes: the items (created), ready_items (ready), parked_items (blocked, cancelled),
-- leases (granted), lease_history (ended, and completed), attention_requests (opened, resolved).
-- Triggers catch every path, present and future, without any code of its own.
--
-- A transaction's changes go first to change_pending, unnumbered: numbering them at insert would let a
-- reader see seq 11 (committed) before seq 10 (a slower transaction, still open) and pass 10 for ever.
-- One sequencer at a time (ChangeSequencer, an advisory lock) moves the rows its snapshot sees, that
-- is committed ones, to `changes`, numbered after the counter; a transaction that commits later is
-- moved by a later pass, with higher numbers, so a reader that continues after the last seq it saw
-- never misses one. Within a pass rows keep their insert order (the identity below), which for two
-- transactions that change the same item is their commit order: the second writes only after the
-- first released the item's row lock, that is after it committed.

create table change_pending (
    id       bigint      generated always as identity,
    type     text        not null,
    item_id  uuid,
    lease_id uuid,
    epoch    bigint,
    queue    text,
    at       timestamptz not null default now(),
    data     jsonb       not null default '{}'
) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
        autovacuum_vacuum_cost_delay = 0, vacuum_truncate = false);
-- No index: the sequencer reads the whole (small) table each pass and deletes what it moves. It churns
-- like ready_items, and is vacuumed with it (QueueMaintenance, V12 for why it is never truncated).

create table changes (
    seq      bigint      primary key,
    type     text        not null,
    item_id  uuid,
    lease_id uuid,
    epoch    bigint,
    queue    text,
    at       timestamptz not null,
    data     jsonb       not null
);

-- No index but the seq: streams read in seq order and filter as they go, and every index here would
-- be one more write per change.

-- The last seq handed out: one row, changed only by the sequencer. Kept apart from `changes` so
-- that trimming old changes never moves it back.
create table change_counter (
    only_row boolean not null default true primary key,
    last_seq bigint  not null,
    constraint change_counter_one_row check (only_row)
);

insert into change_counter (last_seq) values (0);

create function changes_item_created() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, queue, data)
    select 'item.created', c.id, c.queue,
           jsonb_build_object('title', c.title, 'priority', c.priority, 'parentId', c.parent_id)
    from created c order by c.id;
    return null;
end;
$$;

-- Named to run before parked_items_record_created (same event, triggers fire by name), so that an
-- item's creation comes before its being blocked.
create trigger changes_item_created
    after insert on work_items
    referencing new table as created
    for each statement execute function changes_item_created();

create function changes_item_ready() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, queue, data)
    select 'item.ready', r.item_id, r.queue, jsonb_build_object('priority', r.priority)
    from readied r order by r.item_id;
    return null;
end;
$$;

create trigger changes_item_ready
    after insert on ready_items
    referencing new table as readied
    for each statement execute function changes_item_ready();

-- Blocked and cancelled: parked_items follows both (V13), off the claim and completion path.
create function changes_item_parked() returns trigger
    language plpgsql as
$$
begin
    if new.status = 'cancelled' then
        insert into change_pending (type, item_id, queue, data)
        select 'item.cancelled', new.item_id, new.queue, jsonb_build_object('reason', w.cancel_reason)
        from work_items w where w.id = new.item_id;
    else
        insert into change_pending (type, item_id, queue) values ('item.blocked', new.item_id, new.queue);
    end if;
    return null;
end;
$$;

create trigger changes_item_parked
    after insert or update of status on parked_items
    for each row execute function changes_item_parked();

create function changes_lease_granted() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, lease_id, epoch, queue, data)
    select 'lease.granted', g.item_id, g.id, g.epoch, g.queue,
           jsonb_build_object('workerId', g.worker_id, 'expiresAt', g.expires_at)
    from granted g order by g.item_id;
    return null;
end;
$$;

create trigger changes_lease_granted
    after insert on leases
    referencing new table as granted
    for each statement execute function changes_lease_granted();

-- Lease history is written once by every ending (completed, released, cancelled, decomposed,
-- attention_requested, expired): the lease's end and, for a completion, the item's.
create function changes_lease_ended() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, lease_id, epoch, queue, data)
    select c.type, e.item_id, e.lease_id, e.epoch, w.queue, c.data
    from ended e
    join work_items w on w.id = e.item_id
    cross join lateral (
        select 1 as step, 'lease.ended' as type,
               jsonb_build_object('outcome', e.outcome, 'workerId', e.worker_id, 'reason', e.reason) as data
        union all
        select 2, 'item.completed', '{}'::jsonb where e.outcome = 'completed'
    ) c
    order by e.item_id, c.step;
    return null;
end;
$$;

create trigger changes_lease_ended
    after insert on lease_history
    referencing new table as ended
    for each statement execute function changes_lease_ended();

create function changes_attention_opened() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, lease_id, epoch, queue, data)
    select 'attention.opened', a.item_id, a.lease_id, a.epoch, w.queue,
           jsonb_build_object('attentionId', a.id, 'question', a.question, 'blocking', a.blocking,
                              'raisedBy', a.raised_by, 'workerId', a.worker_id)
    from opened a join work_items w on w.id = a.item_id
    order by a.id;
    return null;
end;
$$;

create trigger changes_attention_opened
    after insert on attention_requests
    referencing new table as opened
    for each statement execute function changes_attention_opened();

create function changes_attention_resolved() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, lease_id, epoch, queue, data)
    select 'attention.resolved', new.item_id, new.lease_id, new.epoch, w.queue,
           jsonb_build_object('attentionId', new.id, 'resolvedBy', new.resolved_by)
    from work_items w where w.id = new.item_id;
    return null;
end;
$$;

create trigger changes_attention_resolved
    after update of status on attention_requests
    for each row
    when (old.status is distinct from new.status and new.status = 'resolved')
    execute function changes_attention_resolved();
