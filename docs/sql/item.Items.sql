-- The statements of dev.workgraph.item.Items, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: LOCK_ITEMS
select id, status, parent_id, epoch, priority, queue, unmet_dependencies, open_children from work_items where id = any(:ids::uuid[]) order by id for no key update

-- name: LOCK_ITEMS_SHARED
select id, status, parent_id, epoch, priority, queue, unmet_dependencies, open_children from work_items where id = any(:ids::uuid[]) order by id for share

-- name: INSERT_ITEMS
with inserted as (
    insert into work_items (id, title, description, priority, queue, metadata, parent_id, status,
        unmet_dependencies, ready_since, created_by, retry, not_before)
    select n.id, n.title, n.description, n.priority, n.queue, n.metadata::jsonb, :parentId::uuid,
        case when n.unmet = 0 and n.scheduled is null then 'ready' else 'blocked' end, n.unmet,
        case when n.unmet = 0 and n.scheduled is null then now() end, :createdBy,
        -- A child that names no policy inherits its parent's.
        coalesce(n.retry::jsonb, (select p.retry from work_items p where p.id = :parentId::uuid),
            :defaultRetry::jsonb),
        n.scheduled
    from (
        select u.*,
            -- A time that has already come blocks nothing.
            case when u.not_before > now() then u.not_before end as scheduled
        from unnest(:ids::uuid[], :titles::text[], :descriptions::text[], :priorities::int[],
            :queues::text[], :metadata::text[], :unmet::int[], :retries::text[], :notBefore::timestamptz[])
            as u(id, title, description, priority, queue, metadata, unmet, retry, not_before)
    ) n
    returning id, queue, priority, ready_since, status
)
insert into ready_items (item_id, queue, priority, ready_since)
select id, queue, priority, ready_since from inserted where status = 'ready'

-- name: LOCK_ITEMS_IN_ORDER
select w.id, w.status, w.parent_id, w.epoch, w.priority, w.queue, w.unmet_dependencies, w.open_children from unnest(:ids::uuid[]) with ordinality as o(id, position)
join work_items w on w.id = o.id
order by o.position
for no key update of w

-- name: OPEN_SUBTREE
with recursive subtree(id, depth) as (
    select id, 0 from work_items where id = :root and status not in ('completed', 'cancelled')
    union all
    select c.id, s.depth + 1 from subtree s join work_items c on c.parent_id = s.id
    where c.status not in ('completed', 'cancelled')
)
select id from subtree order by depth desc, id

-- name: MARK_CANCELLED
with moment as (
    select clock_timestamp() as t
), cancelled as (
    update work_items
    set status = 'cancelled', closed_at = moment.t, cancel_reason = :reason, cancelled_by = :cancelledBy,
        ready_since = null, not_before = null, updated_at = moment.t
    from moment
    where id = any(:ids::uuid[]) and status not in ('completed', 'cancelled')
    returning id, parent_id
), dequeued as (
    -- By key, not a join: the queue's statistics often say it is empty, and a
    -- join then compares every ready entry with every cancelled item.
    delete from ready_items r where r.item_id = any(array(select c.id from cancelled c))
)
select id, parent_id from cancelled
