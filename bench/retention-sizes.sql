-- Table sizes before and after retention (docs/adr/0029-retention-of-closed-trees.md), on a database
-- migrated to V60: :trees closed trees (a root and one child, each with its completed lease, the child
-- with a checkpoint), closed evenly over the past year; retention of 90 days removes what closed before.
-- Run: psql -v trees=100000 -f bench/retention-sizes.sql
-- With -v claims=FILE, FILE is run before the removal and again after it (after VACUUM), to time
-- claims on the same database; bench/retention-sizes.sh does all of it on a throwaway database.
--
-- The trees are made set-based, 250,000 a transaction, with triggers and foreign-key checks off
-- (session_replication_role, so a superuser only): the rows are what the service would have written,
-- titles included (their trigger is off, so they are written here), in a fraction of the time: 5 x 10^6
-- items in about 10 minutes. The removal is the service's pass: the roots in id order, 100 at a time, each
-- batch removed by retention_remove_trees() in a transaction of its own.
\set ON_ERROR_STOP on
\timing off
create or replace function pg_temp.uuid7_at(ts timestamptz) returns uuid language sql as $$
    select encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
        placing substring(int8send(floor(extract(epoch from ts) * 1000)::bigint) from 3) from 1 for 6),
        52, 1), 53, 1), 'hex')::uuid
$$;
select set_config('bench.trees', :'trees', false);
set session_replication_role = replica;
\timing on
do $$
declare
    trees constant integer := current_setting('bench.trees')::integer;
    chunk constant integer := 250000;
begin
    create temp table sim (root uuid, child uuid, at timestamptz);
    for n in 1..trees by chunk loop
        truncate sim;
        insert into sim
        select pg_temp.uuid7_at(at), pg_temp.uuid7_at(at), at
        -- oldest first, as the service writes them: what retention removes lies at the files' start
        from (select now() - interval '365 days' * (1 - (i - 1)::float8 / trees) as at
              from generate_series(n, least(n + chunk - 1, trees)) i) g;
        insert into work_items (id, title, status, closed_at, created_at, updated_at, epoch, result)
        select root, 'root', 'completed', at + interval '2 minutes', at, at, 1, '{"ok": true}' from sim;
        insert into work_items (id, title, status, closed_at, created_at, updated_at, epoch, parent_id, result)
        select child, 'child', 'completed', at + interval '1 minute', at, at, 1, root, '{"ok": true}' from sim;
        insert into work_item_titles (item_id, title, queue)
        select root, 'root', 'default' from sim union all select child, 'child', 'default' from sim;
        insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, expires_at, ended_at, outcome)
        select gen_random_uuid(), item, 'worker-1', 1, at, at + interval '5 minutes', closed, 'completed'
        from sim, lateral (values (root, at + interval '2 minutes'), (child, at + interval '1 minute')) i(item, closed);
        insert into checkpoints (item_id, seq, lease_id, epoch, worker_id, data, created_at)
        select child, 1, gen_random_uuid(), 1, 'worker-1', '{"step": 1}', at from sim;
        commit;
    end loop;
end
$$;
\timing off
reset session_replication_role;
truncate change_pending;
vacuum analyze work_items, lease_history, checkpoints, work_item_titles;
\echo before
select relname, pg_size_pretty(pg_total_relation_size(oid)) as size, reltuples::bigint as rows
from pg_class where relname in ('work_items', 'lease_history', 'checkpoints', 'work_item_titles') order by 1;
\if :{?claims}
\echo 'claims before retention'
\i :claims
\endif
\timing on
do $$
declare
    cutoff constant timestamptz := now() - interval '90 days';
    -- ClosedTrees.firstIdAt: the smallest UUIDv7 of the cutoff's millisecond
    up_to constant uuid := (lpad(to_hex(floor(extract(epoch from cutoff) * 1000)::bigint), 12, '0')
        || '70008000000000000000')::uuid;
    after uuid := '00000000-0000-0000-0000-000000000000';
    roots uuid[];
    removed record;
    trees bigint := 0;
    items bigint := 0;
    started constant timestamptz := clock_timestamp();
begin
    loop
        select array_agg(id order by id) into roots
        from (select id from work_items
              where id > after and id < up_to and parent_id is null and closed_at < cutoff
              order by id limit 100) r;
        exit when roots is null;
        select * into removed from retention_remove_trees(roots, cutoff);
        commit;
        trees := trees + removed.trees;
        items := items + removed.items;
        after := roots[cardinality(roots)];
    end loop;
    raise notice 'removed % trees (% items) in % s, % ms a tree', trees, items,
        round(extract(epoch from clock_timestamp() - started)::numeric, 1),
        round(1000 * extract(epoch from clock_timestamp() - started)::numeric / greatest(trees, 1), 3);
end
$$;
\timing off
vacuum analyze work_items, lease_history, checkpoints, work_item_titles;
\echo 'after (VACUUM: the space is reused, the files keep their size)'
select relname, pg_size_pretty(pg_total_relation_size(relid)) as size, n_live_tup as rows
from pg_stat_user_tables where relname in ('work_items', 'lease_history', 'checkpoints', 'work_item_titles') order by 1;
\if :{?claims}
\echo 'claims after retention'
\i :claims
\endif
vacuum full work_items, lease_history, checkpoints, work_item_titles;
\echo 'after VACUUM FULL'
select relname, pg_size_pretty(pg_total_relation_size(oid)) as size
from pg_class where relname in ('work_items', 'lease_history', 'checkpoints', 'work_item_titles') order by 1;
