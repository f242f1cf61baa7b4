-- The statements of dev.workgraph.sql.GenericPlans, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: NO_JIT
select set_config('jit', 'off', true)

-- name: FORCE
select set_config('plan_cache_mode', 'force_generic_plan', true), set_config('jit', 'off', true)
