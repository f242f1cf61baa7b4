-- The statements of dev.workgraph.access.TokenLocks, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: HOLD_UNREVOKED
select id from access_tokens where id = :id and revoked_at is null for share
