-- The statements of dev.workgraph.view.LeaseViews, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: LEASE_BY_ID
select l.id as id, l.item_id as item_id, l.worker_id as worker_id, l.epoch as epoch, l.acquired_at as acquired_at, l.renewed_at as renewed_at, l.expires_at as expires_at, l.expires_at > now() as active, null::timestamptz as ended_at, null::text as outcome, null::text as reason from leases l where l.id = :id
union all
select h.lease_id as id, h.item_id as item_id, h.worker_id as worker_id, h.epoch as epoch, h.acquired_at as acquired_at, h.renewed_at as renewed_at, h.expires_at as expires_at, false as active, h.ended_at as ended_at, h.outcome as outcome, h.reason as reason from lease_history h where h.lease_id = :id

-- name: LEASES_OF_ITEM
select l.id as id, l.item_id as item_id, l.worker_id as worker_id, l.epoch as epoch, l.acquired_at as acquired_at, l.renewed_at as renewed_at, l.expires_at as expires_at, l.expires_at > now() as active, null::timestamptz as ended_at, null::text as outcome, null::text as reason from leases l where l.item_id = :itemId and l.epoch > :afterEpoch
union all
select h.lease_id as id, h.item_id as item_id, h.worker_id as worker_id, h.epoch as epoch, h.acquired_at as acquired_at, h.renewed_at as renewed_at, h.expires_at as expires_at, false as active, h.ended_at as ended_at, h.outcome as outcome, h.reason as reason from lease_history h where h.item_id = :itemId and h.epoch > :afterEpoch
order by epoch
limit :limit

-- name: HELD_BY
select exists (select 1 from leases where item_id = :itemId and worker_id = :workerId)
    or exists (select 1 from lease_history where item_id = :itemId and worker_id = :workerId)
