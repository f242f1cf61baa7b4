-- The change stream gains attention.escalated, wait.matched and wait.timed_out (docs/changes.md),
-- written like every other change by triggers in the transaction that makes it (V35, V46).

create function changes_attention_escalated() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, lease_id, epoch, queue, data)
    select 'attention.escalated', new.item_id, new.lease_id, new.epoch, w.queue,
           jsonb_build_object('attentionId', new.id, 'escalateTo', new.escalate_to, 'timeoutAt', new.timeout_at)
    from work_items w where w.id = new.item_id;
    return null;
end;
$$;

create trigger changes_attention_escalated
    after update of escalated_at on attention_requests
    for each row
    when (old.escalated_at is null and new.escalated_at is not null)
    execute function changes_attention_escalated();

-- A wait that ends matched or timed out; one registered already matched (by a retained event) too.
create function changes_wait_ended() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, lease_id, epoch, queue, data)
    select case when new.status = 'matched' then 'wait.matched' else 'wait.timed_out' end,
           new.item_id, new.lease_id, new.epoch, w.queue,
           jsonb_build_object('waitId', new.id, 'eventName', new.event_name, 'eventKey', new.event_key,
                              'eventId', new.matched_event -> 'eventId', 'onTimeout', new.on_timeout)
    from work_items w where w.id = new.item_id;
    return null;
end;
$$;

create trigger changes_wait_ended
    after update of status on waits
    for each row
    when (old.status = 'open' and new.status in ('matched', 'timed_out'))
    execute function changes_wait_ended();

create trigger changes_wait_matched_at_once
    after insert on waits
    for each row
    when (new.status = 'matched')
    execute function changes_wait_ended();
