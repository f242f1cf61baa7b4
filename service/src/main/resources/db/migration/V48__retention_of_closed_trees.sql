-- Retention of closed item trees (docs/adr/0029-retention-of-closed-trees.md).
--
-- Lease history and checkpoints stay append-only for every statement the service runs, with one
-- exception that the database itself checks row by row: retention_remove_tree() below may delete the
-- rows of items that are closed (completed or cancelled) and were closed before the cutoff it was
-- given. It says so by a transaction-local setting that only it sets and clears again; a row of an
-- open item, or of one closed after that cutoff, can still not be removed by anyone, and UPDATE and
-- TRUNCATE stay refused outright.

create function closed_before_retention_cutoff(item uuid) returns boolean
    language sql stable as
$$
    select coalesce(
        (select w.closed_at < nullif(current_setting('workgraph.retention_cutoff', true), '')::timestamptz
         from work_items w
         where w.id = item and w.status in ('completed', 'cancelled')),
        false)
$$;

create or replace function lease_history_is_append_only() returns trigger
    language plpgsql as
$$
begin
    if tg_op = 'DELETE' and closed_before_retention_cutoff(old.item_id) then
        return old;
    end if;
    raise exception 'lease_history is append-only: % is not allowed', tg_op
        using errcode = 'insufficient_privilege';
end;
$$;

create or replace function checkpoints_are_append_only() returns trigger
    language plpgsql as
$$
begin
    if tg_op = 'DELETE' and closed_before_retention_cutoff(old.item_id) then
        return old;
    end if;
    raise exception 'checkpoints are append-only: % is not allowed', tg_op
        using errcode = 'insufficient_privilege';
end;
$$;

-- Removes one whole tree (a root item and all its descendants) with everything recorded about it, if
-- and only if every item of it is closed and was closed before `cutoff`, no dependency ties an item of
-- it to an item outside it, and no other transaction holds one of its items: then it answers the
-- number of items removed, else 0 and changes nothing. Called once per tree in a transaction of its
-- own, so a removal holds its few row locks for milliseconds, and SKIP LOCKED passes over trees that
-- anything else is touching.
create function retention_remove_tree(root uuid, cutoff timestamptz) returns integer
    language plpgsql as
$$
declare
    tree    uuid[];
    locked  integer;
begin
    perform 1 from work_items where id = root and parent_id is null and closed_at < cutoff
        for update skip locked;
    if not found then
        return 0;
    end if;
    with recursive t(id) as (
        select root
        union all
        select c.id from work_items c join t on c.parent_id = t.id
    )
    select array_agg(id) into tree from t;
    select count(*) into locked
    from (select 1 from work_items where id = any(tree) for update skip locked) l;
    if locked <> cardinality(tree) then
        return 0; -- part of it is being worked on (or read for a change): another pass will see
    end if;
    if exists (select 1 from work_items where id = any(tree) and (closed_at is null or closed_at >= cutoff))
        or exists (select 1 from dependencies
                   where (item_id = any(tree)) <> (depends_on_id = any(tree)))
        or exists (select 1 from leases where item_id = any(tree))
        or exists (select 1 from ready_items where item_id = any(tree))
        or exists (select 1 from waits where item_id = any(tree) and status = 'open') then
        return 0;
    end if;
    perform set_config('workgraph.retention_cutoff', cutoff::text, true);
    delete from checkpoints where item_id = any(tree);
    delete from lease_history where item_id = any(tree);
    perform set_config('workgraph.retention_cutoff', '', true);
    delete from attention_requests where item_id = any(tree);
    delete from waits where item_id = any(tree);
    delete from idempotency_keys where item_id = any(tree);
    delete from dependencies where item_id = any(tree);
    delete from parked_items where item_id = any(tree);
    delete from work_items where id = any(tree);
    return cardinality(tree);
end;
$$;
