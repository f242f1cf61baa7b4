-- The statements of dev.workgraph.wait.EventKeys, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: LOCK_EVENT_KEY
select 1 from pg_advisory_xact_lock(:space, hashtext(length(:name) || ':' || :name || :key))
