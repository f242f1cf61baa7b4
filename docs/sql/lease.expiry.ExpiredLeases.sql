-- The statements of dev.workgraph.lease.expiry.ExpiredLeases, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: REAP_EXPIRED
with expired as (
    select l.id, w.consecutive_expirations + 1 as consecutive_expirations, w.attempts + 1 as attempts,
        w.retry::text as retry
    from leases l
    join work_items w on w.id = l.item_id
    where l.expires_at <= now()
    order by l.expires_at
    limit :batchSize
    for update of l, w skip locked
), ended as (
    delete from leases l where l.id = any(array(select x.id from expired x))
    returning l.*
), recorded as (
    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
        ended_at, outcome, reason, error)
    select e.id, e.item_id, e.worker_id, e.epoch, e.acquired_at, e.renewed_at, e.expires_at, e.expires_at, 'expired', null,
        null
    from ended e
    returning *
)
-- The count as it will be: Readiness writes it with the item's new status
-- (one row version per item, not two).
select h.lease_id, h.item_id, h.epoch, x.consecutive_expirations, x.attempts, x.retry
from recorded h
join expired x on x.id = h.lease_id

-- name: PLAN_FOR_THE_TABLES_AS_THEY_ARE
select set_config('plan_cache_mode', 'force_custom_plan', true), set_config('jit', 'off', true)

-- name: UNTIL_NEXT_EXPIRY
select ceil(extract(epoch from min(expires_at) - clock_timestamp()) * 1000)::bigint from leases
