-- The statements of dev.workgraph.view.CheckpointViews, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: CHECKPOINTS_OF_ITEM
select k.seq, k.item_id, k.lease_id, k.epoch, k.worker_id, k.data, k.created_at
from checkpoints k
where k.item_id = :itemId and k.seq < :beforeSeq
order by k.seq desc
limit :limit
