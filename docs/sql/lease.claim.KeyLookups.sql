-- The statements of dev.workgraph.lease.claim.KeyLookups, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: ONLY
select set_config('enable_seqscan', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true), set_config('jit', 'off', true)
