-- The statements of dev.workgraph.database.EmbeddedPostgresServer, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: USER_EXISTS
select 1 from pg_roles where rolname = 'workgraph'

-- name: DATABASE_EXISTS
select 1 from pg_database where datname = 'workgraph'
