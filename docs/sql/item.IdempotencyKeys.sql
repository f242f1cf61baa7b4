-- The statements of dev.workgraph.item.IdempotencyKeys, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: FIND_KEY
select item_id, request = :request::jsonb as same_request from idempotency_keys where key = :key

-- name: INSERT_KEY
insert into idempotency_keys (key, request, item_id) values (:key, :request::jsonb, :itemId)
on conflict (key) do nothing

-- name: DELETE_KEYS_OLDER_THAN
delete from idempotency_keys where created_at < now() - make_interval(secs => :seconds)
