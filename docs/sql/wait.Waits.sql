-- The statements of dev.workgraph.wait.Waits, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: INSERT_IF_LEASE_CURRENT
insert into waits (id, item_id, lease_id, epoch, worker_id, event_name, event_key, status, on_timeout,
    timeout_at, matched_event, resolved_at)
select :id, l.item_id, l.id, l.epoch, l.worker_id, :name, :key,
    case when :matchedEvent::jsonb is null then 'open' else 'matched' end, :onTimeout,
    now() + make_interval(secs => :timeoutSeconds::integer), :matchedEvent::jsonb,
    case when :matchedEvent::jsonb is not null then now() end
from (select * from leases where id = :leaseId limit 1) l
where l.id = :leaseId and l.epoch = :epoch and l.expires_at > now()
returning item_id, status

-- name: OPEN_WAITS_FOR_EVENT
select id, item_id from waits
where event_name = :name and event_key = :key and status = 'open'
order by item_id, id

-- name: MATCH_IF_OPEN
update waits
set status = 'matched', matched_event = :matchedEvent::jsonb, resolved_at = now()
where id = any(:ids::uuid[]) and status = 'open'
returning item_id

-- name: LOCK_DUE
select t.id
from waits t
join work_items w on w.id = t.item_id
where t.status = 'open' and t.timeout_at <= now()
order by t.timeout_at
limit :limit
for no key update of w skip locked

-- name: TIME_OUT_IF_OPEN
update waits
set status = 'timed_out', resolved_at = now()
where id = any(:ids::uuid[]) and status = 'open'
returning id, item_id, lease_id, epoch, worker_id, event_name, event_key, on_timeout, timeout_at, created_at

-- name: CANCEL_OPEN_OF_ITEMS
with cancelled as (
    update waits set status = 'cancelled', resolved_at = now()
    where item_id = any(:ids::uuid[]) and status = 'open'
    returning item_id
)
select item_id, count(*)::int as waits from cancelled group by item_id
