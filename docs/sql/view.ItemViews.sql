-- The statements of dev.workgraph.view.ItemViews, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: ITEM_VIEWS_BY_ID
select i.*,
(select coalesce(json_agg(json_build_object('id', w.id, 'title', w.title, 'status', w.status)
        order by d.created_at, w.id), '[]')
    from dependencies d join work_items w on w.id = d.depends_on_id
    where d.item_id = i.id) as depends_on_json,
(select coalesce(json_agg(json_build_object('id', c.id, 'title', c.title, 'status', c.status,
        'result', c.result::text) order by c.id), '[]')
    from work_items c where c.parent_id = i.id) as children_json,
(select json_build_object('id', l.id, 'itemId', l.item_id, 'workerId', l.worker_id, 'epoch', l.epoch, 'acquiredAt', l.acquired_at, 'renewedAt', l.renewed_at, 'expiresAt', l.expires_at, 'active', l.expires_at > now(), 'endedAt', null::timestamptz, 'outcome', null::text, 'reason', null::text)
    from leases l where l.item_id = i.id) as lease_json,
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
from work_items i where i.id = any((select :ids::uuid[])::uuid[])

-- name: PARTS_OF_ITEMS
select i.id,
(select coalesce(json_agg(json_build_object('id', w.id, 'title', w.title, 'status', w.status)
        order by d.created_at, w.id), '[]')
    from dependencies d join work_items w on w.id = d.depends_on_id
    where d.item_id = i.id) as depends_on_json,
(select coalesce(json_agg(json_build_object('id', c.id, 'title', c.title, 'status', c.status,
        'result', c.result::text) order by c.id), '[]')
    from work_items c where c.parent_id = i.id) as children_json,
(select json_build_object('id', l.id, 'itemId', l.item_id, 'workerId', l.worker_id, 'epoch', l.epoch, 'acquiredAt', l.acquired_at, 'renewedAt', l.renewed_at, 'expiresAt', l.expires_at, 'active', l.expires_at > now(), 'endedAt', null::timestamptz, 'outcome', null::text, 'reason', null::text)
    from leases l where l.item_id = i.id) as lease_json,
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
from unnest((select :ids::uuid[])::uuid[]) as i(id)

-- name: ITEM_VIEW_BY_ID
select i.*,
(select coalesce(json_agg(json_build_object('id', w.id, 'title', w.title, 'status', w.status)
        order by d.created_at, w.id), '[]')
    from dependencies d join work_items w on w.id = d.depends_on_id
    where d.item_id = i.id) as depends_on_json,
(select coalesce(json_agg(json_build_object('id', c.id, 'title', c.title, 'status', c.status,
        'result', c.result::text) order by c.id), '[]')
    from work_items c where c.parent_id = i.id) as children_json,
(select json_build_object('id', l.id, 'itemId', l.item_id, 'workerId', l.worker_id, 'epoch', l.epoch, 'acquiredAt', l.acquired_at, 'renewedAt', l.renewed_at, 'expiresAt', l.expires_at, 'active', l.expires_at > now(), 'endedAt', null::timestamptz, 'outcome', null::text, 'reason', null::text)
    from leases l where l.item_id = i.id) as lease_json,
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
from work_items i where i.id = :id

-- name: DEPENDENTS
select w.id, w.title, w.status
from dependencies d join work_items w on w.id = d.item_id
where d.depends_on_id = :id and (:after::uuid is null or d.item_id > :after::uuid)
order by d.item_id
limit :limit

-- name: PARTS_OF_ITEM
select i.id,
(select coalesce(json_agg(json_build_object('id', w.id, 'title', w.title, 'status', w.status)
        order by d.created_at, w.id), '[]')
    from dependencies d join work_items w on w.id = d.depends_on_id
    where d.item_id = i.id) as depends_on_json,
(select coalesce(json_agg(json_build_object('id', c.id, 'title', c.title, 'status', c.status,
        'result', c.result::text) order by c.id), '[]')
    from work_items c where c.parent_id = i.id) as children_json,
(select json_build_object('id', l.id, 'itemId', l.item_id, 'workerId', l.worker_id, 'epoch', l.epoch, 'acquiredAt', l.acquired_at, 'renewedAt', l.renewed_at, 'expiresAt', l.expires_at, 'active', l.expires_at > now(), 'endedAt', null::timestamptz, 'outcome', null::text, 'reason', null::text)
    from leases l where l.item_id = i.id) as lease_json,
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
from (select :id::uuid as id) i
