-- Table sizes before and after retention (docs/adr/0029-retention-of-closed-trees.md), on a database
-- migrated to V48: :trees closed trees (a root and one child, each with its completed lease, the child
-- with a checkpoint), closed evenly over the past year; retention of 90 days removes what closed before.
-- Run: psql -v trees=100000 -f bench/retention-sizes.sql
-- With -v claims=FILE, FILE is run before the removal and again after it (after VACUUM), to time
-- claims on the same database; bench/retention-sizes.sh does all of it on a throwaway database.
\set ON_ERROR_STOP on
\timing off
create or replace function pg_temp.uuid7_at(ts timestamptz) returns uuid language sql as $$
    select encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
        placing substring(int8send(floor(extract(epoch from ts) * 1000)::bigint) from 3) from 1 for 6),
        52, 1), 53, 1), 'hex')::uuid
$$;
create temp table sim as
select pg_temp.uuid7_at(at) as root, pg_temp.uuid7_at(at) as child, at
from (select now() - interval '365 days' * (i::float8 / :trees) as at from generate_series(1, :trees) i) g;
insert into work_items (id, title, status, closed_at, created_at, updated_at, epoch, result)
select root, 'root', 'completed', at + interval '2 minutes', at, at, 1, '{"ok": true}' from sim;
insert into work_items (id, title, status, closed_at, created_at, updated_at, epoch, parent_id, result)
select child, 'child', 'completed', at + interval '1 minute', at, at, 1, root, '{"ok": true}' from sim;
insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, expires_at, ended_at, outcome)
select gen_random_uuid(), id, 'worker-1', 1, created_at, created_at + interval '5 minutes', closed_at, 'completed'
from work_items where status = 'completed';
insert into checkpoints (item_id, seq, lease_id, epoch, worker_id, data, created_at)
select child, 1, gen_random_uuid(), 1, 'worker-1', '{"step": 1}', at from sim;
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
select sum(retention_remove_tree(id, now() - interval '90 days')) as removed_items
from work_items where parent_id is null and closed_at < now() - interval '90 days';
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
