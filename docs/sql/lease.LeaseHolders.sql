-- The statements of dev.workgraph.lease.LeaseHolders, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: WORKER_OF_LEASE
select worker_id from leases where id = :leaseId
union all
select worker_id from lease_history where lease_id = :leaseId
