-- The statements of dev.workgraph.fence.LeaseFences, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: FENCE_OF_LEASE
select l.worker_id, l.epoch, l.expires_at, l.expires_at > now() as active, w.epoch as current_epoch
from leases l join work_items w on w.id = l.item_id
where l.id = :leaseId
union all
select h.worker_id, h.epoch, h.expires_at, false, w.epoch
from lease_history h join work_items w on w.id = h.item_id
where h.lease_id = :leaseId
