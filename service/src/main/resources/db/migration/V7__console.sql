-- What the web console reads at any size (docs/console.md, "At a million items"): the queues page's
-- per-queue counts and the items page's free-text title search.

-- GET /queues counts the open items of every queue by status, and the oldest ready one. Terminal items
-- (the bulk of a long-running graph) are not in this index, so the count reads only open items, from
-- the index alone once the visibility map is set. Status is already indexed, so status changes were
-- never HOT updates and this index adds no new write path.
create index work_items_open_by_queue_idx on work_items (queue, status) include (ready_since)
    where status in ('ready', 'leased', 'blocked');

-- GET /items?status=&queue= (the queues page links each count to that list) pages through one
-- queue's items of one status by id. With only (status, id) and (queue, id), a combination with few or
-- no matches (nothing ready in a busy queue) read every item of that status or that queue.
create index work_items_queue_status_idx on work_items (queue, status, id);

-- GET /items?q= finds items whose title contains the text, in any letter case (ILIKE), through a
-- trigram index instead of reading every title. pg_trgm ships with PostgreSQL (contrib) and is a
-- trusted extension, so the database owner may create it.
create extension if not exists pg_trgm;

create index work_items_title_trgm_idx on work_items using gin (title gin_trgm_ops);
