-- The statements of dev.workgraph.lease.ending.Successors, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: GRANT_TO_SUCCESSOR
with handed as (
    update work_items w set epoch = w.epoch + 1, updated_at = now()
    where w.id = :itemId and w.status = 'leased'
    returning w.id, w.epoch, w.queue
), granted as (
    insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
    select :leaseId, w.id, :workerId, w.epoch, t.granted_at,
        t.granted_at + make_interval(secs => :leaseSeconds), w.queue
    from handed w
    cross join (select clock_timestamp() as granted_at) t
    returning *
)
select l.id as id, l.item_id as item_id, l.worker_id as worker_id, l.epoch as epoch, l.acquired_at as acquired_at, l.renewed_at as renewed_at, l.expires_at as expires_at, l.expires_at > now() as active, null::timestamptz as ended_at, null::text as outcome, null::text as reason
from granted l
