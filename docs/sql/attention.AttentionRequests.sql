-- The statements of dev.workgraph.attention.AttentionRequests, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: INSERT_IF_LEASE_CURRENT
insert into attention_requests (id, item_id, lease_id, epoch, worker_id, raised_by, blocking, question,
    context, timeout_at, on_timeout, default_resolution, escalate_to)
select :id, l.item_id, l.id, l.epoch, l.worker_id, 'worker', :blocking, :question, :context::jsonb,
    now() + make_interval(secs => :timeoutSeconds::integer), :onTimeout, :defaultResolution, :escalateTo
from leases l
where l.id = :leaseId and l.epoch = :epoch and l.expires_at > now()
returning id

-- name: LOCK_DUE
select a.item_id
from attention_requests a
join work_items w on w.id = a.item_id
where a.status = 'open' and a.escalated_at is null and a.timeout_at <= now()
order by a.timeout_at
limit :limit
for no key update of w skip locked

-- name: DUE_OF_LOCKED_ITEMS
select id, item_id, lease_id, epoch, blocking, on_timeout, default_resolution, escalate_to, question
from attention_requests
where item_id = any(:itemIds::uuid[]) and status = 'open' and escalated_at is null and timeout_at <= now()
order by item_id, id

-- name: ESCALATE_IF_OPEN
update attention_requests set escalated_at = now()
where id = any(:ids::uuid[]) and status = 'open' and escalated_at is null and on_timeout = 'escalate'

-- name: INSERT_SYSTEM_REQUEST
insert into attention_requests (id, item_id, lease_id, epoch, worker_id, raised_by, kind, blocking,
    question, context)
values (:id, :itemId, :leaseId, :epoch, null, 'system', :kind, true, :question, :context::jsonb)

-- name: RESOLVE_IF_OPEN
with resolved as (
    update attention_requests
    set status = 'resolved', resolution = :resolution, resolved_by = :resolvedBy, resolved_at = now()
    where id = :id and status = 'open'
    returning item_id, blocking, raised_by, kind
), streak_reset as (
    -- Answering "retries exhausted" gives the item its attempts again; answering any
    -- system request starts the no-progress count afresh (a human has looked).
    update work_items w set consecutive_expirations = 0,
        attempts = case when r.kind = 'retries_exhausted' then 0 else w.attempts end,
        progress_counted_after = w.epoch
    from resolved r
    where w.id = r.item_id and r.raised_by = 'system'
)
select item_id, blocking from resolved

-- name: ITEM_AND_RESOLVER
select item_id, resolved_by from attention_requests where id = :id

-- name: RESOLVE_OPEN_OF_ITEMS
with resolved as (
    update attention_requests
    set status = 'resolved', resolution = :resolution, resolved_by = 'system', resolved_at = now()
    where item_id = any(:ids::uuid[]) and status = 'open'
    returning item_id, blocking
)
select item_id, count(*) filter (where blocking)::int as blocking from resolved group by item_id

-- name: RECENT_LEASES_OF_ITEMS
select item_id, lease_id, worker_id, epoch, acquired_at, ended_at, outcome
from (
    select h.*, row_number() over (partition by h.item_id order by h.epoch desc) as recency
    from lease_history h
    where h.item_id = any(:ids::uuid[])
) recent
where recency <= :count
order by item_id, epoch desc
