-- The statements of dev.workgraph.item.WaitForGraph, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: LOCK_GRAPH
select 1 from pg_advisory_xact_lock(:key)

-- name: IS_REACHABLE
with recursive reach(id) as (
    select unnest(:from::uuid[])
    union
    select next.id
    from reach r
    cross join lateral (
        select d.depends_on_id as id from dependencies d where d.item_id = r.id
        union all
        select c.id from work_items c where c.parent_id = r.id
    ) next
)
select exists (select 1 from reach where id = :target)

-- name: WAITS_FOR
select d.item_id as waiter, d.depends_on_id as waited_for from dependencies d where d.item_id = any(:ids::uuid[])
union all
select c.parent_id, c.id from work_items c where c.parent_id = any(:ids::uuid[])
