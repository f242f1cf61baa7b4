-- The statements of dev.workgraph.lease.ending.Failures, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: FAIL_IF_CURRENT
with ended as (
    delete from leases l where l.id = :leaseId and l.epoch = :epoch and l.expires_at > now()
    returning l.*
), recorded as (
    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
        ended_at, outcome, reason, error)
    select e.id, e.item_id, e.worker_id, e.epoch, e.acquired_at, e.renewed_at, e.expires_at, now(), 'failed', :reason,
        :error::jsonb
    from ended e
    returning *
), counted as (
    update work_items w
    set attempts = w.attempts + 1, consecutive_expirations = 0, updated_at = now()
    from recorded h
    where w.id = h.item_id
    returning w.id, w.attempts, w.retry
)
select h.lease_id as id, h.item_id as item_id, h.worker_id as worker_id, h.epoch as epoch, h.acquired_at as acquired_at, h.renewed_at as renewed_at, h.expires_at as expires_at, false as active, h.ended_at as ended_at, h.outcome as outcome, h.reason as reason, c.attempts, c.retry::text as retry
from recorded h join counted c on c.id = h.item_id
