-- The statements of dev.workgraph.change.ChangeLog, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: HEAD
select last_seq from change_counter

-- name: AFTER
select seq, type, item_id, lease_id, epoch, queue, at, data::text as data
from changes where seq > :after order by seq limit :limit
