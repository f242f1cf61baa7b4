-- The statements of dev.workgraph.lease.claim.QueueGates, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: HEADROOM_OF_CAPPED_QUEUES
select h.queue, h.headroom from queue_headroom(:queues::text[]) h
