#!/usr/bin/env bash
# Shows why 10,000 simultaneous expiries are sometimes recorded in about a second and sometimes in
# ten or more: the plan PostgreSQL runs for the reaper's statement depends on how big the leases
# table was when the pooled connection last planned it.
#
#   bench/reaper-plan.sh           # 10,000 expired leases, batches of 1,000 (the service's default)
#   LEASES=20000 bench/reaper-plan.sh
#
# Creates a throwaway database on the local PostgreSQL (PGHOST/PGPORT/PGUSER, default
# 127.0.0.1:5432 postgres), applies the Flyway migrations with psql, reads the reaper's statement
# out of the compiled service (so the plan is of the statement the service runs), and explains one
# batch twice, in transactions it rolls back:
#
#   1. with the generic plan a connection caches when the statement is prepared while the leases
#      table is (nearly) empty, as it is right after the service's queue vacuum, and then reused
#      after a burst of leases: PostgreSQL believes "leases" has one row;
#   2. with a plan made for the table as it is (a custom plan).
#
# The database is dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

leases=${LEASES:-10000}
batch=${BATCH:-1000}
source bench/lib.sh
throwaway_database wgbench_reaper_plan

# The statement's class and field as bench/statements.properties does not list them (the reaper is
# not a throughput path); adjust here if the service renames them.
reaper_class=${REAPER_CLASS:-dev.workgraph.lease.expiry.ExpiredLeases}
reaper_field=${REAPER_FIELD:-REAP_EXPIRED}
service_statement "$reaper_class" "$reaper_field" | sed -e "s/:batchSize/\$1/g" > "$work/reap.sql"

createdb "$db"
apply_migrations "$db"

psql -q -X -v ON_ERROR_STOP=1 -d "$db" <<SQL
set synchronous_commit = off;
-- Some history, and the items whose leases will expire.
insert into work_items (id, title, queue, status, closed_at, epoch)
select gen_random_uuid(), 'done', 'history', 'completed', now(), 1 from generate_series(1, 100000);
insert into work_items (id, title, queue, status, epoch)
select gen_random_uuid(), 'leased ' || i, 'reaper', 'leased', 1 from generate_series(1, $leases) i;
vacuum analyze;
SQL

explain() {
	local mode=$1
	psql -q -X -v ON_ERROR_STOP=1 -d "$db" <<SQL
delete from leases;
-- The queue vacuum runs while the table is empty: PostgreSQL now believes it has no rows.
vacuum analyze leases;
set plan_cache_mode = $mode;
prepare reap(int) as $(cat "$work/reap.sql");
-- Planned now, while the table is empty (a connection keeps this plan until the next vacuum).
begin; explain (costs off) execute reap($batch); rollback;
-- Then a burst: $leases leases, all already expired.
insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
select gen_random_uuid(), id, 'reaper-plan', 1, now() - interval '10 s', now() - interval '1 s', queue
from work_items where queue = 'reaper';
\echo
\echo '=== plan_cache_mode = $mode: one batch of $batch out of $leases expired leases'
begin;
explain (analyze, costs off, timing off, summary on) execute reap($batch);
rollback;
SQL
}

# Only the analysed batch: its joins, how many row pairs they rejected, and its time.
for mode in force_generic_plan force_custom_plan; do
	explain "$mode" | sed -n '/===/,$p' \
		| grep -E '===|Nested Loop|Hash Join|Merge Join|Seq Scan on leases|Rows Removed by Join Filter|Execution Time'
done
