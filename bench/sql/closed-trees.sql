-- Closed item trees as a year of service leaves them (docs/adr/0029-retention-of-closed-trees.md), on a
-- migrated database: :trees trees (a root and one child, each with its completed lease, the child with
-- a checkpoint), closed evenly over the past year, oldest first, as the service writes them.
--   psql -v trees=100000 -f bench/sql/closed-trees.sql
-- Without -v trees, the environment's TREES, else 100,000 (so that bench/ab.sh's SQL_A/SQL_B, which
-- pass no variables, can use it: TREES=1000000 SQL_A=... SQL_B=... bench/ab.sh).
--
-- The trees are made set-based, 250,000 a transaction, with triggers and foreign-key checks off
-- (session_replication_role, so a superuser only): the rows are what the service would have written,
-- titles included (their trigger is off, so they are written here), in a fraction of the time: 5 x 10^6
-- items in about 10 minutes. The outbox's pending changes of the load are dropped (none of these rows
-- was written by the service).
\set ON_ERROR_STOP on
\if :{?trees}
\else
\getenv trees TREES
\if :{?trees}
\else
\set trees 100000
\endif
\endif
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
-- Analyzed, as autovacuum would have left a year's tables: unanalyzed, retention's removal planned
-- its statements for empty tables and took four times as long per tree.
vacuum analyze work_items, lease_history, checkpoints, work_item_titles;
