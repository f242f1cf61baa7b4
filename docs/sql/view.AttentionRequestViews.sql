-- The statements of dev.workgraph.view.AttentionRequestViews, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: SELECT_WITH_TITLE
select a.id, a.item_id, w.title as item_title, a.lease_id, a.worker_id, a.epoch, a.raised_by, a.kind,
    a.blocking, a.question, a.context::text as context, a.status, a.opened_at, a.resolution,
    a.resolved_by, a.resolved_at, a.timeout_at, a.on_timeout, a.default_resolution, a.escalate_to,
    a.escalated_at
from attention_requests a
join work_items w on w.id = a.item_id

-- name: ATTENTION_REQUEST_BY_ID
select a.id, a.item_id, w.title as item_title, a.lease_id, a.worker_id, a.epoch, a.raised_by, a.kind,
    a.blocking, a.question, a.context::text as context, a.status, a.opened_at, a.resolution,
    a.resolved_by, a.resolved_at, a.timeout_at, a.on_timeout, a.default_resolution, a.escalate_to,
    a.escalated_at
from attention_requests a
join work_items w on w.id = a.item_id
where a.id = :id
