-- The statements of dev.workgraph.lease.claim.QueueGates, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: CLOSED_QUEUES
select s.name from queue_settings s
    where s.paused or s.max_active_leases <= (select count(*) from leases l where l.queue = s.name)

-- name: CAPPED_QUEUES
select s.name from queue_settings s where s.max_active_leases is not null

-- name: HEADROOM_OF_CAPPED_QUEUES
select h.queue, h.headroom from queue_headroom(:queues::text[]) h
