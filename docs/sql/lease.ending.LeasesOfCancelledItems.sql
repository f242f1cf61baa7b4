-- The statements of dev.workgraph.lease.ending.LeasesOfCancelledItems, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: END_LEASES_OF_CANCELLED_ITEMS
with moment as (
    select clock_timestamp() as t
), ended as (
    delete from leases l where l.item_id = any(:ids::uuid[])
    returning l.*
), recorded as (
    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
        ended_at, outcome, reason, error)
    select e.id, e.item_id, e.worker_id, e.epoch, e.acquired_at, e.renewed_at, e.expires_at, least(e.expires_at, (select t from moment)), case when e.expires_at > (select t from moment) then 'cancelled' else 'expired' end, case when e.expires_at > (select t from moment) then :reason end,
        null
    from ended e
    returning *
)
select outcome, count(*) as n from recorded group by outcome
