-- The statements of dev.workgraph.notification.NotificationListener, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: NOTIFY
select pg_notify(?, ?)
