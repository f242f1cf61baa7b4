-- For the schema before migration V13, which built ADR 0015's alternative 4: apply it to a build
-- before V13 (e.g. commit 995ef44); on a later schema the indexes it drops no longer exist.
-- Shared by the side-table experiments: the status out of work_items' indexes
-- (no-status-indexes.sql), ready items of a queue in id order through ready_items, and a table of
-- parked items (the states the including script names), kept by a row trigger that the including
-- script creates with its own list of states. Not maintained on insert: the A/B supply makes
-- ready items only.
\ir no-status-indexes.sql
create table parked_items (
    item_id uuid primary key references work_items (id),
    queue   text not null,
    status  text not null
);
create index parked_items_status_idx on parked_items (status, item_id);
create index parked_items_queue_status_idx on parked_items (queue, status, item_id);
create index ready_items_queue_id_idx on ready_items (queue, item_id);

-- Parks the item when it enters one of the trigger's states (its arguments), unparks it otherwise.
create function parked_items_follow() returns trigger
    language plpgsql
as $$
begin
    if new.status = any(tg_argv) then
        insert into parked_items (item_id, queue, status) values (new.id, new.queue, new.status)
        on conflict (item_id) do update set status = excluded.status;
    else
        delete from parked_items where item_id = new.id;
    end if;
    return null;
end;
$$;
