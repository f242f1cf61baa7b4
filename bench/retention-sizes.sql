-- Table sizes before and after retention (docs/adr/0029-retention-of-closed-trees.md), on a migrated
-- database: :trees closed trees made by sql/closed-trees.sql, closed evenly over the past year;
-- retention of 90 days (bench/retention-pass.sh, the service's pass) removes what closed before.
-- Run from the repository's root: psql -v trees=100000 -f bench/retention-sizes.sql
-- With -v claims=FILE, FILE is run before the removal and again after it (after VACUUM), to time
-- claims on the same database; bench/retention-sizes.sh does all of it on a throwaway database.
\set ON_ERROR_STOP on
\timing off
\ir sql/closed-trees.sql
\echo before
select relname, pg_size_pretty(pg_total_relation_size(oid)) as size, reltuples::bigint as rows
from pg_class where relname in ('work_items', 'lease_history', 'checkpoints', 'work_item_titles') order by 1;
\if :{?claims}
\echo 'claims before retention'
\i :claims
\endif
-- The service's pass, from outside (its own session), flat out.
\setenv RETENTION_DB :DBNAME
\! bench/retention-pass.sh "$RETENTION_DB"
vacuum analyze work_items, lease_history, checkpoints, work_item_titles;
\echo 'after (VACUUM: the space is reused, the files keep their size)'
select relname, pg_size_pretty(pg_total_relation_size(relid)) as size, n_live_tup as rows
from pg_stat_user_tables where relname in ('work_items', 'lease_history', 'checkpoints', 'work_item_titles') order by 1;
-- What the removal dirtied written out first, so that the checkpointer is not busy beside the claims,
-- then autovacuum's workers left to finish (the tables above are vacuumed; the others are not): the
-- claims are timed on a machine that does nothing else. Committed each second, as a wait that held
-- a snapshot would hold back the vacuum it waits for.
checkpoint;
select clock_timestamp() as waited_from \gset
do $$
begin
    for i in 1..3600 loop
        perform pg_stat_clear_snapshot();
        exit when not exists (select 1 from pg_stat_activity where backend_type = 'autovacuum worker');
        perform pg_sleep(1);
        commit;
    end loop;
end
$$;
select round(extract(epoch from clock_timestamp() - :'waited_from'::timestamptz)) as waited_for_autovacuum_s;
\if :{?claims}
\echo 'claims after retention'
\i :claims
\endif
-- SKIP_VACUUM_FULL=1 in the environment leaves the compaction out (minutes at 10^7 items).
\getenv skip_vacuum_full SKIP_VACUUM_FULL
\if :{?skip_vacuum_full}
\else
vacuum full work_items, lease_history, checkpoints, work_item_titles;
\echo 'after VACUUM FULL'
select relname, pg_size_pretty(pg_total_relation_size(oid)) as size
from pg_class where relname in ('work_items', 'lease_history', 'checkpoints', 'work_item_titles') order by 1;
\endif
