-- UUIDv7-shaped ids, as the service's Uuid7 makes them (the millisecond clock first): rows made in
-- bulk land in index order, and a queue's head lies together in the table, as the service's own
-- inserts do, instead of at random. A single expression without FROM, so PostgreSQL inlines it
-- (bulk fills are 10^7 rows).
create or replace function bench_uuid7(ts timestamptz) returns uuid language sql volatile as $$
    select (overlay(lpad(to_hex(floor(extract(epoch from ts) * 1000)::bigint), 12, '0') placing '-' from 9 for 0)
        || '-7' || substr(gen_random_uuid()::text, 16))::uuid
$$;
