-- For the schema before migration V13, which built ADR 0015's alternative 4 (the service's own
-- statements are now ItemListing's and QueueViews'; bench/console-million.sh prints their plans).
-- The item listings and queue counts of ADR 0015's alternative 4, as a prototype to read plans
-- from: on a database loaded as bench/console-million.sh loads it (10^6 items), then altered by
-- status-side-tables-completed-in-history.sql, with the parked items filled from the rows
-- (insert into parked_items select id, queue, status from work_items where status in ('blocked', 'cancelled'))
-- and analyzed. psql -f this file; each statement is one kind of console page.
-- a. blocked, first page
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from (select item_id from parked_items where status = 'blocked' order by item_id) s
join work_items w on w.id = s.item_id order by s.item_id limit 51;
-- b. ready in queue-3
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from (select item_id from ready_items where queue = 'queue-3' order by item_id) s
join work_items w on w.id = s.item_id order by s.item_id limit 51;
-- c. completed, a page in the middle
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from (select item_id from lease_history where outcome = 'completed' and item_id > '00000007-a120-7000-8000-000000000000' order by item_id) s
join work_items w on w.id = s.item_id order by s.item_id limit 51;
-- d. ready or blocked, merged
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from (
  select item_id from ready_items
  union all select item_id from parked_items where status = any('{blocked}')
) s(item_id) join work_items w on w.id = s.item_id order by s.item_id limit 51;
-- d2. every status but completed, in queue-3
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from (
  select item_id from ready_items where queue = 'queue-3'
  union all select item_id from leases
  union all select item_id from parked_items where queue = 'queue-3' and status = any('{blocked,cancelled}')
) s(item_id) join work_items w on w.id = s.item_id where w.queue = 'queue-3' order by s.item_id limit 51;
-- e. completed in queue-3
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from work_items w where w.queue = 'queue-3' and w.status = 'completed' order by w.id limit 51;
-- e2. cancelled in queue-3 (none)
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from (select item_id from parked_items where queue = 'queue-3' and status = 'cancelled' order by item_id) s
join work_items w on w.id = s.item_id order by s.item_id limit 51;
-- f. queue backlogs
explain (analyze, buffers, costs off, timing off, summary on)
with ready as (select queue, count(*) as n, min(ready_since) as oldest from ready_items group by queue),
leased as (select w.queue, count(*) as n from leases l join work_items w on w.id = l.item_id group by w.queue),
blocked as (select queue, count(*) as n from parked_items where status = 'blocked' group by queue)
select q.queue, coalesce(r.n, 0) as ready, coalesce(l.n, 0) as leased, coalesce(b.n, 0) as blocked, r.oldest
from (select queue from ready union select queue from leased union select queue from blocked) q
left join ready r using (queue) left join leased l using (queue) left join blocked b using (queue)
order by q.queue;
-- The merged pages in the shape that plans well: every source applies every filter itself and is
-- ordered and limited on its own, then the sources are merged in id order (Merge Append) and the
-- items read by key. Without the inner limits the planner sorted a whole source (12-22 ms above).
-- d. ready or blocked, each source ordered and limited on its own
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from (
  (select item_id from ready_items order by item_id limit 51)
  union all
  (select item_id from parked_items where status = 'blocked' order by item_id limit 51)
) s join work_items w on w.id = s.item_id order by s.item_id limit 51;
-- d2. every open status in queue-3, each source filtered by the queue itself
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from (
  (select item_id from ready_items where queue = 'queue-3' order by item_id limit 51)
  union all
  (select l.item_id from leases l join work_items lw on lw.id = l.item_id where lw.queue = 'queue-3' order by l.item_id limit 51)
  union all
  (select item_id from parked_items where queue = 'queue-3' and status = 'blocked' order by item_id limit 51)
) s join work_items w on w.id = s.item_id order by s.item_id limit 51;
-- d3. completed or cancelled in queue-3, a page in the middle
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from (
  (select id as item_id from work_items where queue = 'queue-3' and status = 'completed' and id > '00000007-a120-7000-8000-000000000000' order by id limit 51)
  union all
  (select item_id from parked_items where queue = 'queue-3' and status = 'cancelled' and item_id > '00000007-a120-7000-8000-000000000000' order by item_id limit 51)
) s join work_items w on w.id = s.item_id order by s.item_id limit 51;
-- d4. every status, no filter (the sources cover every item)
explain (analyze, buffers, costs off, timing off, summary on)
select w.* from (
  (select item_id from ready_items order by item_id limit 51)
  union all (select item_id from leases order by item_id limit 51)
  union all (select item_id from parked_items order by item_id limit 51)
  union all (select item_id from lease_history where outcome = 'completed' order by item_id limit 51)
) s join work_items w on w.id = s.item_id order by s.item_id limit 51;
-- f2. the queue counts with the leases carrying their item's queue (copied at the grant; an item's
-- queue never changes): alter table leases add column queue text, filled from the items, and an
-- index on it. At 10^7 items the join of f is what takes seconds.
explain (analyze, costs off, summary on)
with ready as (select queue, count(*) as n, min(ready_since) as oldest from ready_items group by queue),
leased as (select queue, count(*) as n from leases group by queue),
blocked as (select queue, count(*) as n from parked_items where status = 'blocked' group by queue)
select q.queue, coalesce(r.n, 0) as ready, coalesce(l.n, 0) as leased, coalesce(b.n, 0) as blocked, r.oldest
from (select queue from ready union select queue from leased union select queue from blocked) q
left join ready r using (queue) left join leased l using (queue) left join blocked b using (queue)
order by q.queue;
