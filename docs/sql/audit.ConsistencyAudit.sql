-- The statements of dev.workgraph.audit.ConsistencyAudit, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: INCONSISTENT_ITEMS
with facts as (
    select w.id, 'item' as source, w.status, w.epoch, w.queue, w.priority, w.ready_since,
        w.unmet_dependencies, w.open_children, w.open_attention_requests,
        0 as unmet, 0 as open_child, 0 as blocking_request, 0 as open_request, 0 as completion,
        (w.not_before is not null)::int as scheduled,
        w.open_waits as stored_waits, 0 as open_wait
    from work_items w
    where w.id > :after and w.id <= :upTo
    union all
    select l.item_id, 'lease', null, l.epoch, l.queue, null, null, null, null, null, 0, 0, 0, 0, 0, 0, null, 0
    from leases l
    where l.item_id > :after and l.item_id <= :upTo
    union all
    select r.item_id, 'queued', null, null, r.queue, r.priority, r.ready_since, null, null, null,
        0, 0, 0, 0, 0, 0, null, 0
    from ready_items r
    where r.item_id > :after and r.item_id <= :upTo
    union all
    select p.item_id, 'parked', p.status, null, null, null, null, null, null, null, 0, 0, 0, 0, 0, 0, null, 0
    from parked_items p
    where p.item_id > :after and p.item_id <= :upTo
    union all
    select d.item_id, 'unmet', null, null, null, null, null, null, null, null, 1, 0, 0, 0, 0, 0, null, 0
    from dependencies d
    cross join lateral (select t.status from work_items t where t.id = d.depends_on_id limit 1) t
    where d.item_id > :after and d.item_id <= :upTo and t.status <> 'completed'
    union all
    select k.parent_id, 'child', null, null, null, null, null, null, null, null, 0, 1, 0, 0, 0, 0, null, 0
    from work_items k
    where k.parent_id > :after and k.parent_id <= :upTo and k.status not in ('completed', 'cancelled')
    union all
    select a.item_id, 'attention', null, null, null, null, null, null, null, null,
        0, 0, a.blocking::int, 1, 0, 0, null, 0
    from attention_requests a
    where a.item_id > :after and a.item_id <= :upTo and a.status = 'open'
    union all
    select h.item_id, 'completion', null, null, null, null, null, null, null, null, 0, 0, 0, 0, 1, 0, null, 0
    from lease_history h
    where h.item_id > :after and h.item_id <= :upTo and h.outcome = 'completed'
    union all
    select t.item_id, 'wait', null, null, null, null, null, null, null, null, 0, 0, 0, 0, 0, 0, null, 1
    from waits t
    where t.item_id > :after and t.item_id <= :upTo and t.status = 'open'
    order by 1
), recount as (
    select id,
        max(status) filter (where source = 'item') as status,
        max(epoch) filter (where source = 'item') as epoch,
        max(queue) filter (where source = 'item') as queue,
        max(priority) filter (where source = 'item') as priority,
        max(ready_since) filter (where source = 'item') as ready_since,
        max(unmet_dependencies) as unmet_dependencies,
        max(open_children) as open_children,
        max(open_attention_requests) as open_attention_requests,
        max(stored_waits) as open_waits,
        sum(open_wait) as expected_waits,
        sum(unmet) as expected_unmet,
        sum(open_child) as expected_children,
        sum(blocking_request) as expected_attention,
        sum(open_request) as open_requests,
        sum(completion) as completed_leases,
        sum(scheduled) as scheduled,
        max(status) filter (where source = 'parked') as parked_as,
        bool_or(source = 'lease') as has_lease,
        max(epoch) filter (where source = 'lease') as lease_epoch,
        max(queue) filter (where source = 'lease') as lease_queue,
        bool_or(source = 'queued') as queued,
        max(queue) filter (where source = 'queued') as queued_queue,
        max(priority) filter (where source = 'queued') as queued_priority,
        max(ready_since) filter (where source = 'queued') as queued_since
    from facts
    group by id
), problems as (
    select id, 'unmetDependencies is ' || unmet_dependencies || ' but recounting gives ' || expected_unmet
        as problem from recount where unmet_dependencies <> expected_unmet
    union all
    select id, 'openChildren is ' || open_children || ' but recounting gives ' || expected_children
        from recount where open_children <> expected_children
    union all
    select id, 'openAttentionRequests is ' || open_attention_requests || ' but recounting gives '
        || expected_attention from recount where open_attention_requests <> expected_attention
    union all
    select id, 'openWaits is ' || open_waits || ' but recounting gives ' || expected_waits
        from recount where open_waits <> expected_waits
    union all
    select id, 'status is leased but there is no active lease' from recount
        where status = 'leased' and not has_lease
    union all
    select id, 'has an active lease but status is ' || status from recount
        where has_lease and status <> 'leased'
    union all
    select id, 'active lease has epoch ' || lease_epoch || ' but the item is at ' || epoch from recount
        where has_lease and lease_epoch <> epoch
    union all
    select id, 'status is ' || status || ' but the recounted blockers say otherwise' from recount
        where status in ('ready', 'blocked')
        and (status = 'ready')
            <> (expected_unmet = 0 and expected_children = 0 and expected_attention = 0 and expected_waits = 0
                and scheduled = 0)
    union all
    select id, 'status is ready but the item is not in the claim queue' from recount
        where status = 'ready' and not queued
    union all
    select id, 'in the claim queue but status is ' || status from recount where queued and status <> 'ready'
    union all
    select id, 'claim queue entry differs from the item' from recount
        where queued and (queued_queue <> queue or queued_priority <> priority
            or queued_since is distinct from ready_since)
    union all
    select id, 'active lease is in queue ' || lease_queue || ' but the item is in ' || queue from recount
        where has_lease and lease_queue <> queue
    union all
    select id, 'status is ' || status || ' but ' || completed_leases || ' leases ended completed' from recount
        where completed_leases <> (case when status = 'completed' then 1 else 0 end)
    union all
    select id, 'status is ' || status || ' but parked as ' || coalesce(parked_as, 'nothing') from recount
        where parked_as is distinct from (case when status in ('blocked', 'cancelled') then status end)
    union all
    select id, 'completed with ' || expected_children || ' open children' from recount
        where status = 'completed' and expected_children > 0
    union all
    select id, 'cancelled with ' || open_requests || ' open attention requests' from recount
        where status = 'cancelled' and open_requests > 0
    union all
    select id, status || ' with ' || expected_waits || ' open waits' from recount
        where status in ('cancelled', 'completed') and expected_waits > 0
)
select id, problem from problems order by id, problem limit :limit

-- name: CHUNK_END
select id from (select id from work_items where id > :after order by id limit :size) chunk
order by id desc limit 1

-- name: ITEM_COUNT
select count(*) from work_items
