-- The statements of dev.workgraph.lease.claim.Claims, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: CLAIM_NEXT_READY
with gates as materialized (
    select coalesce(array_agg(s.name) filter (where s.paused or (s.max_active_leases is not null
            and s.max_active_leases <= (select count(*) from leases l where l.queue = s.name))), '{}') as closed,
        coalesce(array_agg(s.name) filter (where s.max_active_leases is not null), '{}') as capped
    from queue_settings s
), preferred as materialized (
    select r.item_id, r.ctid as ready_row, r.priority, r.ready_since, r.queue, true as is_preferred
    from ready_items r
    join work_items w on w.id = r.item_id
    where r.preferred_worker_id = :workerId and r.ready_since > now() - make_interval(secs => :continuitySeconds) and r.queue || '' <> all((select g.closed from gates g)::text[])
    order by r.priority desc, r.ready_since, r.item_id
    limit 1
    for update of r, w skip locked
), best as materialized (
    select r.item_id, r.ctid as ready_row, r.priority, r.ready_since, r.queue, false as is_preferred
    from ready_items r
    join work_items w on w.id = r.item_id
    where true and r.queue || '' <> all((select g.closed from gates g)::text[])
    order by r.priority desc, r.ready_since, r.item_id
    limit 1
    for update of r, w skip locked
), picked as (
    select item_id, ready_row, queue from (select * from preferred union all select * from best) candidate
    order by priority desc, is_preferred desc, ready_since, item_id
    limit 1
), assignment as (
    select item_id, ready_row, :leaseId::uuid as lease_id, :workerId::text as worker_id,
        :leaseSeconds::int as lease_seconds
    from picked p
    where case when p.queue = any((select g.capped from gates g)::text[])
    then (select h.headroom from queue_headroom(array[p.queue]) h) > 0
    else true end
),dequeued as (
    delete from ready_items r where r.ctid = (select a.ready_row from assignment a)
    returning r.item_id
), claimed as (
    update work_items w
    set status = 'leased', epoch = w.epoch + 1, ready_since = null, updated_at = now()
    where w.id = any(array(select d.item_id from dequeued d))
    returning w.*
), granted as (
    -- Acquired when granted, not when the transaction began: now() can precede the
    -- snapshot that saw the previous lease end, and history would show an overlap.
    insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
    select a.lease_id, c.id, a.worker_id, c.epoch, t.granted_at,
        t.granted_at + make_interval(secs => a.lease_seconds), c.queue
    from claimed c
    join assignment a on a.item_id = c.id
    cross join (select clock_timestamp() as granted_at) t
    returning *
)
select c.*, g.id as lease_id, g.item_id as lease_item_id, g.worker_id as lease_worker_id, g.epoch as lease_epoch, g.acquired_at as lease_acquired_at, g.renewed_at as lease_renewed_at, g.expires_at as lease_expires_at, g.expires_at > now() as lease_active, null::timestamptz as lease_ended_at, null::text as lease_outcome, null::text as lease_reason, i.*
from claimed c
join granted g on g.item_id = c.id
-- The claimed item's view in the same round trip: its parts but the lease (the
-- claim changes none of them; the caller puts in the lease granted here).
cross join lateral (select
(select coalesce(json_agg(json_build_object('id', w.id, 'title', w.title, 'status', w.status)
        order by d.created_at, w.id), '[]')
    from dependencies d join work_items w on w.id = d.depends_on_id
    where d.item_id = i.id) as depends_on_json,
(select coalesce(json_agg(json_build_object('id', c.id, 'title', c.title, 'status', c.status,
        'result', c.result::text) order by c.id), '[]')
    from work_items c where c.parent_id = i.id) as children_json,
(select coalesce(json_agg(json_build_object('id', a.id, 'itemId', a.item_id, 'itemTitle', t.title,
        'leaseId', a.lease_id, 'workerId', a.worker_id, 'epoch', a.epoch, 'raisedBy', a.raised_by, 'kind', a.kind,
        'blocking', a.blocking, 'question', a.question, 'context', a.context::text, 'status', a.status,
        'openedAt', a.opened_at, 'resolution', a.resolution, 'resolvedBy', a.resolved_by,
        'resolvedAt', a.resolved_at, 'timeoutAt', a.timeout_at,
        'onTimeout', case when a.on_timeout is not null then json_build_object('action', a.on_timeout,
            'resolution', a.default_resolution, 'escalateTo', a.escalate_to) end,
        'escalatedAt', a.escalated_at, 'escalateTo', a.escalate_to) order by a.opened_at, a.id), '[]')
    from attention_requests a join work_items t on t.id = a.item_id
    where a.item_id = i.id) as attention_requests_json,
(select json_build_object('seq', k.seq, 'itemId', k.item_id, 'leaseId', k.lease_id, 'epoch', k.epoch,
    'workerId', k.worker_id, 'data', k.data::text, 'createdAt', k.created_at)
    from checkpoints k where k.item_id = i.id order by k.seq desc limit 1) as checkpoint_json,
(select coalesce(json_agg(json_build_object('id', t.id, 'itemId', t.item_id, 'leaseId', t.lease_id, 'epoch', t.epoch,
    'workerId', t.worker_id, 'event', json_build_object('name', t.event_name, 'key', t.event_key),
    'status', t.status, 'onTimeout', t.on_timeout, 'timeoutAt', t.timeout_at,
    'matchedEvent', t.matched_event::text, 'createdAt', t.created_at, 'resolvedAt', t.resolved_at) order by t.created_at, t.id), '[]')
    from waits t where t.item_id = i.id) as waits_json

    from (select c.id) as i(id)) i

-- name: CLAIM_NEXT_READY_IN_QUEUES
with gates as materialized (
    select coalesce(array_agg(s.name) filter (where s.paused or (s.max_active_leases is not null
            and s.max_active_leases <= (select count(*) from leases l where l.queue = s.name))), '{}') as closed,
        coalesce(array_agg(s.name) filter (where s.max_active_leases is not null), '{}') as capped
    from queue_settings s
), preferred as materialized (
    select r.item_id, r.ctid as ready_row, r.priority, r.ready_since, r.queue, true as is_preferred
    from ready_items r
    join work_items w on w.id = r.item_id
    where r.preferred_worker_id = :workerId and r.ready_since > now() - make_interval(secs => :continuitySeconds) and r.queue = any(:queues::text[]) and r.queue || '' <> all((select g.closed from gates g)::text[])
    order by r.priority desc, r.ready_since, r.item_id
    limit 1
    for update of r, w skip locked
), best as materialized (
    select best_of_queue.* from unnest(:queues::text[]) as q(name)
    cross join lateral (
        select r.item_id, r.ctid as ready_row, r.priority, r.ready_since, r.queue, false as is_preferred
    from ready_items r
    join work_items w on w.id = r.item_id
    where r.queue >= q.name and r.queue <= q.name and r.queue || '' <> all((select g.closed from gates g)::text[])
    order by r.queue, r.priority desc, r.ready_since, r.item_id
    limit 1
    for update of r, w skip locked
    ) best_of_queue
), picked as (
    select item_id, ready_row, queue from (select * from preferred union all select * from best) candidate
    order by priority desc, is_preferred desc, ready_since, item_id
    limit 1
), assignment as (
    select item_id, ready_row, :leaseId::uuid as lease_id, :workerId::text as worker_id,
        :leaseSeconds::int as lease_seconds
    from picked p
    where case when p.queue = any((select g.capped from gates g)::text[])
    then (select h.headroom from queue_headroom(array[p.queue]) h) > 0
    else true end
),dequeued as (
    delete from ready_items r where r.ctid = (select a.ready_row from assignment a)
    returning r.item_id
), claimed as (
    update work_items w
    set status = 'leased', epoch = w.epoch + 1, ready_since = null, updated_at = now()
    where w.id = any(array(select d.item_id from dequeued d))
    returning w.*
), granted as (
    -- Acquired when granted, not when the transaction began: now() can precede the
    -- snapshot that saw the previous lease end, and history would show an overlap.
    insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
    select a.lease_id, c.id, a.worker_id, c.epoch, t.granted_at,
        t.granted_at + make_interval(secs => a.lease_seconds), c.queue
    from claimed c
    join assignment a on a.item_id = c.id
    cross join (select clock_timestamp() as granted_at) t
    returning *
)
select c.*, g.id as lease_id, g.item_id as lease_item_id, g.worker_id as lease_worker_id, g.epoch as lease_epoch, g.acquired_at as lease_acquired_at, g.renewed_at as lease_renewed_at, g.expires_at as lease_expires_at, g.expires_at > now() as lease_active, null::timestamptz as lease_ended_at, null::text as lease_outcome, null::text as lease_reason, i.*
from claimed c
join granted g on g.item_id = c.id
-- The claimed item's view in the same round trip: its parts but the lease (the
-- claim changes none of them; the caller puts in the lease granted here).
cross join lateral (select
(select coalesce(json_agg(json_build_object('id', w.id, 'title', w.title, 'status', w.status)
        order by d.created_at, w.id), '[]')
    from dependencies d join work_items w on w.id = d.depends_on_id
    where d.item_id = i.id) as depends_on_json,
(select coalesce(json_agg(json_build_object('id', c.id, 'title', c.title, 'status', c.status,
        'result', c.result::text) order by c.id), '[]')
    from work_items c where c.parent_id = i.id) as children_json,
(select coalesce(json_agg(json_build_object('id', a.id, 'itemId', a.item_id, 'itemTitle', t.title,
        'leaseId', a.lease_id, 'workerId', a.worker_id, 'epoch', a.epoch, 'raisedBy', a.raised_by, 'kind', a.kind,
        'blocking', a.blocking, 'question', a.question, 'context', a.context::text, 'status', a.status,
        'openedAt', a.opened_at, 'resolution', a.resolution, 'resolvedBy', a.resolved_by,
        'resolvedAt', a.resolved_at, 'timeoutAt', a.timeout_at,
        'onTimeout', case when a.on_timeout is not null then json_build_object('action', a.on_timeout,
            'resolution', a.default_resolution, 'escalateTo', a.escalate_to) end,
        'escalatedAt', a.escalated_at, 'escalateTo', a.escalate_to) order by a.opened_at, a.id), '[]')
    from attention_requests a join work_items t on t.id = a.item_id
    where a.item_id = i.id) as attention_requests_json,
(select json_build_object('seq', k.seq, 'itemId', k.item_id, 'leaseId', k.lease_id, 'epoch', k.epoch,
    'workerId', k.worker_id, 'data', k.data::text, 'createdAt', k.created_at)
    from checkpoints k where k.item_id = i.id order by k.seq desc limit 1) as checkpoint_json,
(select coalesce(json_agg(json_build_object('id', t.id, 'itemId', t.item_id, 'leaseId', t.lease_id, 'epoch', t.epoch,
    'workerId', t.worker_id, 'event', json_build_object('name', t.event_name, 'key', t.event_key),
    'status', t.status, 'onTimeout', t.on_timeout, 'timeoutAt', t.timeout_at,
    'matchedEvent', t.matched_event::text, 'createdAt', t.created_at, 'resolvedAt', t.resolved_at) order by t.created_at, t.id), '[]')
    from waits t where t.item_id = i.id) as waits_json

    from (select c.id) as i(id)) i

-- name: ANY_READY
with gates as materialized (
    select coalesce(array_agg(s.name) filter (where s.paused or (s.max_active_leases is not null
            and s.max_active_leases <= (select count(*) from leases l where l.queue = s.name))), '{}') as closed,
        coalesce(array_agg(s.name) filter (where s.max_active_leases is not null), '{}') as capped
    from queue_settings s
)
select exists (select 1 from ready_items r where r.queue || '' <> all((select g.closed from gates g)::text[]))

-- name: ANY_READY_IN_QUEUES
with gates as materialized (
    select coalesce(array_agg(s.name) filter (where s.paused or (s.max_active_leases is not null
            and s.max_active_leases <= (select count(*) from leases l where l.queue = s.name))), '{}') as closed,
        coalesce(array_agg(s.name) filter (where s.max_active_leases is not null), '{}') as capped
    from queue_settings s
)
select exists (select best_of_queue.* from unnest(:queues::text[]) as q(name)
    cross join lateral (
        select 1 from ready_items r where r.queue >= q.name and r.queue <= q.name and r.queue || '' <> all((select g.closed from gates g)::text[]) limit 1
    ) best_of_queue)

-- name: LOCK_CLAIM_CANDIDATES
with gates as materialized (
    select coalesce(array_agg(s.name) filter (where s.paused or (s.max_active_leases is not null
            and s.max_active_leases <= (select count(*) from leases l where l.queue = s.name))), '{}') as closed,
        coalesce(array_agg(s.name) filter (where s.max_active_leases is not null), '{}') as capped
    from queue_settings s
), best as materialized (
    select r.item_id, r.ctid as ready_row, r.priority, r.ready_since, r.queue, r.preferred_worker_id
    from ready_items r
    join work_items w on w.id = r.item_id
    where true and r.queue || '' <> all((select g.closed from gates g)::text[])
    order by r.priority desc, r.ready_since, r.item_id
    limit :n
    for update of r, w skip locked
), preferred as materialized (
    select p.* from unnest(:workerIds::text[]) as x(worker_id)
    cross join lateral (
        select r.item_id, r.ctid as ready_row, r.priority, r.ready_since, r.queue, r.preferred_worker_id
    from ready_items r
    join work_items w on w.id = r.item_id
    where r.preferred_worker_id = x.worker_id and r.ready_since > now() - make_interval(secs => :continuitySeconds) and r.queue || '' <> all((select g.closed from gates g)::text[])
    order by r.priority desc, r.ready_since, r.item_id
    limit :n
    for update of r, w skip locked
    ) p
)
select c.item_id, c.ready_row::text, c.priority, c.preferred_worker_id,
    c.preferred_worker_id is not null
        and c.ready_since > now() - make_interval(secs => :continuitySeconds) as preference_open,
    c.queue, c.queue = any((select g.capped from gates g)::text[]) as capped
from (select * from best union select * from preferred) c
order by c.priority desc, c.ready_since, c.item_id

-- name: LOCK_CLAIM_CANDIDATES_IN_QUEUES
with gates as materialized (
    select coalesce(array_agg(s.name) filter (where s.paused or (s.max_active_leases is not null
            and s.max_active_leases <= (select count(*) from leases l where l.queue = s.name))), '{}') as closed,
        coalesce(array_agg(s.name) filter (where s.max_active_leases is not null), '{}') as capped
    from queue_settings s
), best as materialized (
    select best_of_queue.* from unnest(:queues::text[]) as q(name)
    cross join lateral (
        select r.item_id, r.ctid as ready_row, r.priority, r.ready_since, r.queue, r.preferred_worker_id
    from ready_items r
    join work_items w on w.id = r.item_id
    where r.queue >= q.name and r.queue <= q.name and r.queue || '' <> all((select g.closed from gates g)::text[])
    order by r.queue, r.priority desc, r.ready_since, r.item_id
    limit :n
    for update of r, w skip locked
    ) best_of_queue
), preferred as materialized (
    select p.* from unnest(:workerIds::text[]) as x(worker_id)
    cross join lateral (
        select r.item_id, r.ctid as ready_row, r.priority, r.ready_since, r.queue, r.preferred_worker_id
    from ready_items r
    join work_items w on w.id = r.item_id
    where r.preferred_worker_id = x.worker_id and r.ready_since > now() - make_interval(secs => :continuitySeconds) and r.queue = any(:queues::text[]) and r.queue || '' <> all((select g.closed from gates g)::text[])
    order by r.priority desc, r.ready_since, r.item_id
    limit :n
    for update of r, w skip locked
    ) p
)
select c.item_id, c.ready_row::text, c.priority, c.preferred_worker_id,
    c.preferred_worker_id is not null
        and c.ready_since > now() - make_interval(secs => :continuitySeconds) as preference_open,
    c.queue, c.queue = any((select g.capped from gates g)::text[]) as capped
from (select * from best union select * from preferred) c
order by c.priority desc, c.ready_since, c.item_id

-- name: GRANT_LEASES
with assignment as (
    select * from unnest(:itemIds::uuid[], :readyRows::tid[], :leaseIds::uuid[], :workerIds::text[],
        :leaseSeconds::int[]) as a(item_id, ready_row, lease_id, worker_id, lease_seconds)
),dequeued as (
    delete from ready_items r where r.ctid = any(array(select a.ready_row from assignment a))
    returning r.item_id
), claimed as (
    update work_items w
    set status = 'leased', epoch = w.epoch + 1, ready_since = null, updated_at = now()
    where w.id = any(array(select d.item_id from dequeued d))
    returning w.*
), granted as (
    -- Acquired when granted, not when the transaction began: now() can precede the
    -- snapshot that saw the previous lease end, and history would show an overlap.
    insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
    select a.lease_id, c.id, a.worker_id, c.epoch, t.granted_at,
        t.granted_at + make_interval(secs => a.lease_seconds), c.queue
    from claimed c
    join assignment a on a.item_id = c.id
    cross join (select clock_timestamp() as granted_at) t
    returning *
)
select c.*, g.id as lease_id, g.item_id as lease_item_id, g.worker_id as lease_worker_id, g.epoch as lease_epoch, g.acquired_at as lease_acquired_at, g.renewed_at as lease_renewed_at, g.expires_at as lease_expires_at, g.expires_at > now() as lease_active, null::timestamptz as lease_ended_at, null::text as lease_outcome, null::text as lease_reason, i.*
from claimed c
join granted g on g.item_id = c.id
-- The claimed item's view in the same round trip: its parts but the lease (the
-- claim changes none of them; the caller puts in the lease granted here).
cross join lateral (select
(select coalesce(json_agg(json_build_object('id', w.id, 'title', w.title, 'status', w.status)
        order by d.created_at, w.id), '[]')
    from dependencies d join work_items w on w.id = d.depends_on_id
    where d.item_id = i.id) as depends_on_json,
(select coalesce(json_agg(json_build_object('id', c.id, 'title', c.title, 'status', c.status,
        'result', c.result::text) order by c.id), '[]')
    from work_items c where c.parent_id = i.id) as children_json,
(select coalesce(json_agg(json_build_object('id', a.id, 'itemId', a.item_id, 'itemTitle', t.title,
        'leaseId', a.lease_id, 'workerId', a.worker_id, 'epoch', a.epoch, 'raisedBy', a.raised_by, 'kind', a.kind,
        'blocking', a.blocking, 'question', a.question, 'context', a.context::text, 'status', a.status,
        'openedAt', a.opened_at, 'resolution', a.resolution, 'resolvedBy', a.resolved_by,
        'resolvedAt', a.resolved_at, 'timeoutAt', a.timeout_at,
        'onTimeout', case when a.on_timeout is not null then json_build_object('action', a.on_timeout,
            'resolution', a.default_resolution, 'escalateTo', a.escalate_to) end,
        'escalatedAt', a.escalated_at, 'escalateTo', a.escalate_to) order by a.opened_at, a.id), '[]')
    from attention_requests a join work_items t on t.id = a.item_id
    where a.item_id = i.id) as attention_requests_json,
(select json_build_object('seq', k.seq, 'itemId', k.item_id, 'leaseId', k.lease_id, 'epoch', k.epoch,
    'workerId', k.worker_id, 'data', k.data::text, 'createdAt', k.created_at)
    from checkpoints k where k.item_id = i.id order by k.seq desc limit 1) as checkpoint_json,
(select coalesce(json_agg(json_build_object('id', t.id, 'itemId', t.item_id, 'leaseId', t.lease_id, 'epoch', t.epoch,
    'workerId', t.worker_id, 'event', json_build_object('name', t.event_name, 'key', t.event_key),
    'status', t.status, 'onTimeout', t.on_timeout, 'timeoutAt', t.timeout_at,
    'matchedEvent', t.matched_event::text, 'createdAt', t.created_at, 'resolvedAt', t.resolved_at) order by t.created_at, t.id), '[]')
    from waits t where t.item_id = i.id) as waits_json

    from (select c.id) as i(id)) i
