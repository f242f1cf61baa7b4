-- The statements of dev.workgraph.item.Dependencies, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: INSERT_DEPENDENCIES
insert into dependencies (item_id, depends_on_id)
select * from unnest(:items::uuid[], :targets::uuid[])
on conflict do nothing
returning item_id

-- name: DELETE_DEPENDENCY
delete from dependencies where item_id = :itemId and depends_on_id = :dependsOnId
