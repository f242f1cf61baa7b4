-- wait.matched and wait.timed_out were written by two triggers, built side by side (V43 with the
-- waits, V47 with the change stream): each settled wait became two changes. V43's stays, since it
-- also covers a wait matched as it is registered; it gains the workerId that V47's carried.

drop trigger changes_wait_settled on waits;
drop function changes_wait_settled();

create or replace function changes_wait_ended() returns trigger
    language plpgsql as
$$
begin
    insert into change_pending (type, item_id, lease_id, epoch, queue, data)
    select case when new.status = 'matched' then 'wait.matched' else 'wait.timed_out' end,
           new.item_id, new.lease_id, new.epoch, w.queue,
           jsonb_build_object('waitId', new.id, 'eventName', new.event_name, 'eventKey', new.event_key,
                              'workerId', new.worker_id, 'eventId', new.matched_event -> 'eventId',
                              'onTimeout', new.on_timeout)
    from work_items w where w.id = new.item_id;
    return null;
end;
$$;
