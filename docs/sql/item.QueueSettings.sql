-- The statements of dev.workgraph.item.QueueSettings, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: CHANGE_QUEUE_SETTINGS
with changed as (
    insert into queue_settings as s (name, paused, max_active_leases)
    values (:name, coalesce(:paused, false), :maxActiveLeases)
    on conflict (name) do update
    set paused = coalesce(:paused, s.paused),
        max_active_leases = case when :capGiven then :maxActiveLeases else s.max_active_leases end,
        updated_at = now()
    returning s.name
)
select pg_notify('work_graph_ready', name) from changed
