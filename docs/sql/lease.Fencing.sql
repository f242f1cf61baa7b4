-- The statements of dev.workgraph.lease.Fencing, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: LOCK_ITEM_OF_LEASE
select w.id, w.status, w.parent_id, w.epoch, w.priority, w.queue, w.unmet_dependencies, w.open_children, (l.id = :leaseId and l.epoch = :epoch and l.expires_at > now()) as current
from (select * from leases where id = :leaseId limit 1) l
join work_items w on w.id = l.item_id
for no key update of w

-- name: END_IF_CURRENT
with ended as (
    delete from leases l where l.id = :leaseId and l.epoch = :epoch and l.expires_at > now()
    returning l.*
), recorded as (
    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
        ended_at, outcome, reason, error)
    select e.id, e.item_id, e.worker_id, e.epoch, e.acquired_at, e.renewed_at, e.expires_at, now(), :outcome, :reason,
        null
    from ended e
    returning *
), streak_broken as (
    update work_items w set consecutive_expirations = 0
    from recorded h
    where w.id = h.item_id and w.consecutive_expirations <> 0
)
select h.lease_id as id, h.item_id as item_id, h.worker_id as worker_id, h.epoch as epoch, h.acquired_at as acquired_at, h.renewed_at as renewed_at, h.expires_at as expires_at, false as active, h.ended_at as ended_at, h.outcome as outcome, h.reason as reason
from recorded h

-- name: LEASE_STATE
select l.epoch, l.expires_at <= now() as expired, false as ended, w.epoch as current_epoch,
    w.id as item_id
from leases l join work_items w on w.id = l.item_id
where l.id = :leaseId
union all
select h.epoch, h.outcome = 'expired', true, w.epoch, w.id
from lease_history h join work_items w on w.id = h.item_id
where h.lease_id = :leaseId

-- name: COMPLETE_IF_CURRENT
with ended as (
    delete from leases l where l.id = :leaseId and l.epoch = :epoch and l.expires_at > now()
    returning l.*
), recorded as (
    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
        ended_at, outcome, reason, error)
    select e.id, e.item_id, e.worker_id, e.epoch, e.acquired_at, e.renewed_at, e.expires_at, now(), 'completed', null,
        null
    from ended e
    returning *
), completed as (
    update work_items w
    set status = 'completed', result = :result::jsonb, closed_at = now(), updated_at = now(),
        consecutive_expirations = 0
    from recorded h
    where w.id = h.item_id and w.open_children = 0 and w.unmet_dependencies = 0
    returning w.*
)
select h.lease_id as lease_id, h.item_id as lease_item_id, h.worker_id as lease_worker_id, h.epoch as lease_epoch, h.acquired_at as lease_acquired_at, h.renewed_at as lease_renewed_at, h.expires_at as lease_expires_at, false as lease_active, h.ended_at as lease_ended_at, h.outcome as lease_outcome, h.reason as lease_reason,
    c.id is not null as completed, w.open_children as blocking_children,
    w.unmet_dependencies as blocking_dependencies,
    array(select d.item_id from dependencies d where d.depends_on_id = h.item_id) as dependents,
    c.*, i.*
from recorded h
join work_items w on w.id = h.item_id
left join completed c on c.id = h.item_id
left join lateral (select
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

    from (select c.id where c.id is not null) as i(id)) i on true

-- name: RENEW_IF_CURRENT
update leases l
set expires_at = now() + make_interval(secs => :leaseSeconds), renewed_at = now()
where l.id = :leaseId and l.epoch = :epoch and l.expires_at > now()
returning l.id as id, l.item_id as item_id, l.worker_id as worker_id, l.epoch as epoch, l.acquired_at as acquired_at, l.renewed_at as renewed_at, l.expires_at as expires_at, l.expires_at > now() as active, null::timestamptz as ended_at, null::text as outcome, null::text as reason
