-- The statements of dev.workgraph.database.AutovacuumSettings, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: SETTINGS
select current_setting('autovacuum')::boolean as server,
    current_setting('track_counts')::boolean as track_counts,
    coalesce((select o.option_value::boolean
              from pg_class c, pg_options_to_table(c.reloptions) o
              where c.oid = 'work_items'::regclass and o.option_name = 'autovacuum_enabled'),
             true) as work_items
