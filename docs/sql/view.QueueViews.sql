-- The statements of dev.workgraph.view.QueueViews, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: QUEUES_TEMPLATE
with ready as (
    select queue, count(*) as n, min(ready_since) as oldest from ready_items where %1$s group by queue
), leased as (
    select queue, count(*) as n from leases where %1$s group by queue
), blocked as (
    select queue, count(*) as n from parked_items where status = 'blocked' and %1$s group by queue
), settings as (
    select name as queue, paused, max_active_leases from queue_settings where %2$s
)
select q.queue,
    coalesce(r.n, 0) as ready,
    coalesce(l.n, 0) as leased,
    coalesce(b.n, 0) as blocked,
    r.oldest as oldest_ready_since,
    extract(epoch from now() - r.oldest) as oldest_ready_age_seconds,
    coalesce(s.paused, false) as paused,
    s.max_active_leases
from (%3$s) q
left join ready r using (queue)
left join leased l using (queue)
left join blocked b using (queue)
left join settings s using (queue)
order by q.queue

-- name: QUEUE_BACKLOGS
with ready as (
    select queue, count(*) as n, min(ready_since) as oldest from ready_items where true group by queue
), leased as (
    select queue, count(*) as n from leases where true group by queue
), blocked as (
    select queue, count(*) as n from parked_items where status = 'blocked' and true group by queue
), settings as (
    select name as queue, paused, max_active_leases from queue_settings where paused or max_active_leases is not null
)
select q.queue,
    coalesce(r.n, 0) as ready,
    coalesce(l.n, 0) as leased,
    coalesce(b.n, 0) as blocked,
    r.oldest as oldest_ready_since,
    extract(epoch from now() - r.oldest) as oldest_ready_age_seconds,
    coalesce(s.paused, false) as paused,
    s.max_active_leases
from (select queue from ready union select queue from leased union select queue from blocked
    union select queue from settings) q
left join ready r using (queue)
left join leased l using (queue)
left join blocked b using (queue)
left join settings s using (queue)
order by q.queue

-- name: QUEUE_BY_NAME
with ready as (
    select queue, count(*) as n, min(ready_since) as oldest from ready_items where queue >= :name and queue <= :name group by queue
), leased as (
    select queue, count(*) as n from leases where queue >= :name and queue <= :name group by queue
), blocked as (
    select queue, count(*) as n from parked_items where status = 'blocked' and queue >= :name and queue <= :name group by queue
), settings as (
    select name as queue, paused, max_active_leases from queue_settings where name = :name
)
select q.queue,
    coalesce(r.n, 0) as ready,
    coalesce(l.n, 0) as leased,
    coalesce(b.n, 0) as blocked,
    r.oldest as oldest_ready_since,
    extract(epoch from now() - r.oldest) as oldest_ready_age_seconds,
    coalesce(s.paused, false) as paused,
    s.max_active_leases
from (select :name::text as queue) q
left join ready r using (queue)
left join leased l using (queue)
left join blocked b using (queue)
left join settings s using (queue)
order by q.queue
