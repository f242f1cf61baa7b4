-- New titles wait in the GIN index's pending list until it passes gin_pending_list_limit (4 MB by
-- default, about 500 pages) or a vacuum flushes it. The planner prices every search through the
-- index with a scan of that whole list, so the same search cost ten times more just before a flush
-- than after it. Where the pattern is a parameter (a generic plan, which a pooled connection keeps),
-- a search's matches after its walk (the condition on item_id beside the pattern) then looked
-- cheaper by the primary key's range: it read every title after the walk (90,000 of 100,000 in a
-- test). A limit of 256 kB keeps the list to about 32 pages, so the index's price stays far below
-- any plan that reads the table, and insertions still move titles into the index in batches.
alter index work_item_titles_queue_title_idx set (gin_pending_list_limit = 256);
