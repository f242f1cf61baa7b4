-- The statements of dev.workgraph.lease.ending.Checkpoints, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: WRITE_IF_CURRENT
with current_lease as (
    select l.* from (select * from leases where id = :leaseId limit 1) l where l.id = :leaseId and l.epoch = :epoch and l.expires_at > now()
), renewed as (
    update leases l
    set expires_at = now() + make_interval(secs => :renewSeconds), renewed_at = now()
    from current_lease c
    where l.id = c.id and :renewSeconds::integer is not null
    returning l.*
), k as (
    insert into checkpoints (item_id, seq, lease_id, epoch, worker_id, data, created_at)
    select c.item_id,
        coalesce((select max(p.seq) from checkpoints p where p.item_id = c.item_id), 0) + 1,
        c.id, c.epoch, c.worker_id, :data::jsonb, now()
    from current_lease c
    returning *
)
select k.seq, k.item_id, k.lease_id, k.epoch, k.worker_id, k.data, k.created_at, l.id as lease_id, l.item_id as lease_item_id, l.worker_id as lease_worker_id, l.epoch as lease_epoch, l.acquired_at as lease_acquired_at, l.renewed_at as lease_renewed_at, l.expires_at as lease_expires_at, l.expires_at > now() as lease_active, null::timestamptz as lease_ended_at, null::text as lease_outcome, null::text as lease_reason
from k, (select * from renewed
         union all
         select * from current_lease where not exists (select 1 from renewed)) l
