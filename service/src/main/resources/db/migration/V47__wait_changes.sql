-- The change stream gains wait.matched and wait.timed_out (docs/changes.md): a wait (V40) that an
-- event matched or whose deadline passed, in the transaction that settles it.

create function changes_wait_settled() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, lease_id, epoch, queue, data)
    select case new.status when 'matched' then 'wait.matched' else 'wait.timed_out' end,
           new.item_id, new.lease_id, new.epoch, w.queue,
           jsonb_build_object('waitId', new.id, 'eventName', new.event_name, 'eventKey', new.event_key,
                              'workerId', new.worker_id, 'onTimeout', new.on_timeout,
                              'eventId', new.matched_event ->> 'eventId')
    from work_items w where w.id = new.item_id;
    return null;
end;
$$;

create trigger changes_wait_settled
    after update of status on waits
    for each row
    when (old.status = 'open' and new.status in ('matched', 'timed_out'))
    execute function changes_wait_settled();
