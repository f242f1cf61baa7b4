-- Retention removes items whose Idempotency-Keys (kept a day) are long gone, yet the foreign key's
-- check on every deleted work item, and retention's own delete of the tree's keys, read
-- idempotency_keys by item_id: without an index, the whole table (a day of keys) per removed item.
-- The price is one more index entry per POST /items that carries an Idempotency-Key.
create index idempotency_keys_item_idx on idempotency_keys (item_id);
