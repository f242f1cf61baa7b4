-- Item updates without index writes (docs/adr/0015-item-updates-without-index-writes.md).
--
-- Three indexes of work_items held `status`, so no status change could be a heap-only (HOT) update:
-- a claim and a completion each wrote an entry into every index of the table, nine per item. The
-- status lists and the queue counts now find an item's state where it already lives: ready items in
-- ready_items, leased ones in leases, completed ones by their lease history's `completed` row (every
-- completion writes it), and only blocked and cancelled items, whose transitions are off the claim
-- and completion path, in a table of their own kept by triggers. `work_items.status` stays the one
-- truth; the consistency audit checks that every source agrees with it.

drop index work_items_status_idx;
drop index work_items_queue_status_idx;
drop index work_items_open_by_queue_idx;

-- Room on each page for the updated versions of its rows: a HOT update must fit on the same page.
-- Measured: 60 keeps two thirds of the item updates heap-only, 80 a third. Pages written before this
-- migration are full until rewritten (VACUUM FULL work_items, docs/operations.md).
alter table work_items set (fillfactor = 60);

-- Blocked and cancelled items, by status and by queue, in id order.
create table parked_items (
    item_id uuid primary key references work_items (id),
    queue   text not null,
    status  text not null,

    constraint parked_items_status_parked check (status in ('blocked', 'cancelled'))
);

-- The queue counts read the blocked entries of this index alone, whatever number of cancelled ones.
create index parked_items_status_idx on parked_items (status, item_id) include (queue);
create index parked_items_queue_status_idx on parked_items (queue, status, item_id);

insert into parked_items (item_id, queue, status)
select id, queue, status from work_items where status in ('blocked', 'cancelled');

-- Items are created by one statement per request (or per bulk load): one insert for all of them.
create function parked_items_record_created() returns trigger
    language plpgsql
as $$
begin
    insert into parked_items (item_id, queue, status)
    select id, queue, status from created where status in ('blocked', 'cancelled');
    return null;
end;
$$;

create trigger parked_items_record_created
    after insert on work_items
    referencing new table as created
    for each statement execute function parked_items_record_created();

-- A row trigger whose condition is false for every claim, completion, release and expiry (ready,
-- leased and completed are not parked), so the lifecycle never runs it.
create function parked_items_follow() returns trigger
    language plpgsql
as $$
begin
    if new.status in ('blocked', 'cancelled') then
        insert into parked_items (item_id, queue, status) values (new.id, new.queue, new.status)
        on conflict (item_id) do update set status = excluded.status;
    else
        delete from parked_items where item_id = new.id;
    end if;
    return null;
end;
$$;

create trigger parked_items_follow
    after update of status on work_items
    for each row
    when (old.status is distinct from new.status
          and (old.status in ('blocked', 'cancelled') or new.status in ('blocked', 'cancelled')))
    execute function parked_items_follow();

-- Ready items of a queue in id order (the claim-order indexes are in priority order).
create index ready_items_queue_id_idx on ready_items (queue, item_id);

-- Completed items in id order: one entry per completion, the only index entry a completion writes
-- for the item's state.
create index lease_history_completed_idx on lease_history (item_id) where outcome = 'completed';

-- The leased count per queue reads the leases alone: joined to the items it took seconds at ten
-- million items. Copied when the lease is granted; an item's queue never changes.
alter table leases add column queue text;

update leases l set queue = w.queue from work_items w where w.id = l.item_id;

alter table leases alter column queue set not null;

-- Queues are immutable: parked_items, ready_items and leases carry a copy of the item's.
create function work_items_queue_is_immutable() returns trigger
    language plpgsql
as $$
begin
    raise exception 'work_items.queue is immutable (item %)', old.id;
end;
$$;

create trigger work_items_queue_is_immutable
    before update of queue on work_items
    for each row
    when (old.queue is distinct from new.queue)
    execute function work_items_queue_is_immutable();
