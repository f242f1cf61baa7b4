-- The statements of dev.workgraph.metrics.GaugeSamples, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: SAMPLE
select 'ready' as kind, queue, count(*) as n from ready_items group by queue
union all
select 'leases', null, count(*) from leases
union all
select 'attention', null, count(*) from attention_requests where status = 'open'
union all
select 'scheduled', null, count(*) from work_items where not_before is not null
