-- The statements of dev.workgraph.view.QueueViews, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: QUEUE_BACKLOGS
with ready as (
    select queue, count(*) as n, min(ready_since) as oldest from ready_items group by queue
), leased as (
    select queue, count(*) as n from leases group by queue
), blocked as (
    select queue, count(*) as n from parked_items where status = 'blocked' group by queue
)
select q.queue,
    coalesce(r.n, 0) as ready,
    coalesce(l.n, 0) as leased,
    coalesce(b.n, 0) as blocked,
    r.oldest as oldest_ready_since,
    extract(epoch from now() - r.oldest) as oldest_ready_age_seconds
from (select queue from ready union select queue from leased union select queue from blocked) q
left join ready r using (queue)
left join leased l using (queue)
left join blocked b using (queue)
order by q.queue
