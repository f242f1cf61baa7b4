-- The statements of dev.workgraph.retention.ClosedTrees, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: ROOTS_CLOSED_BEFORE
select id from work_items
where id > :after and id < :upTo and parent_id is null and closed_at < :cutoff
order by id
limit :limit

-- name: REMOVE_TREES
select trees, items from retention_remove_trees(:roots::uuid[], :cutoff)
