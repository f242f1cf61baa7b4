-- The statements of dev.workgraph.lease.expiry.QueueMaintenance, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: CHURNED_QUEUE_TABLES
select relname from pg_stat_user_tables
where relname in ('ready_items', 'leases', 'change_pending') and schemaname = current_schema()
    and n_dead_tup >= :threshold
