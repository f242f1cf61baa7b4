#!/usr/bin/env bash
# Table sizes before and after retention, and the claim's time on that database before and after:
#
#   bench/retention-sizes.sh 100000      # 100,000 closed trees (2 x 10^5 items) over a simulated year
#   bench/retention-sizes.sh 2500000     # 5 x 10^6 items: 15 to 45 min on a 2-core machine, as busy as it is
#   bench/retention-sizes.sh 5000000     # 10^7 items: twice that (generation and removal are linear)
#   REPEAT=30 SKIP_VACUUM_FULL=1 bench/retention-sizes.sh 5000000   # more claims timed, no compaction at the end
#
# Creates a throwaway database on the local PostgreSQL (PGHOST/PGPORT/PGUSER, default 127.0.0.1:5432
# postgres), applies the Flyway migrations with psql, adds READY=1000 ready items to claim from, and
# runs bench/retention-sizes.sql with its claims hook: the service's claim statement (read out of the
# compiled service, as bench/claim-plan.sh does), prepared with the generic plan the service uses,
# three claims to warm up, then REPEAT=5 claims under EXPLAIN (ANALYZE, BUFFERS), in a transaction
# that is rolled back. Prints the sizes, each claim's execution time and the median, before the
# removal and after it. The database is dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

trees=${1:?usage: bench/retention-sizes.sh TREES}
ready=${READY:-1000}
repeat=${REPEAT:-5}
source bench/lib.sh
throwaway_database workgraph_retention

service_statement dev.workgraph.lease.claim.Claims CLAIM_NEXT_READY > "$work/claim.sql"
createdb "$db"
apply_migrations "$db"

psql -q -X -v ON_ERROR_STOP=1 -d "$db" <<SQL
with ready as (
    insert into work_items (id, title, status, priority, ready_since)
    select gen_random_uuid(), 'ready ' || i, 'ready', i % 3, clock_timestamp()
    from generate_series(1, $ready) i
    returning id, queue, priority, ready_since
)
insert into ready_items (item_id, queue, priority, ready_since)
select id, queue, priority, ready_since from ready;
SQL

# As bench/claim-plan.sh binds it: the service's generic plan, its parameters typed as it binds them.
{
	echo "begin;"
	echo "set local plan_cache_mode = force_generic_plan;"
	echo "prepare claim(uuid, text, int, float8) as"
	sed -e 's/:leaseId/$1/g' -e 's/:workerId/$2/g' -e 's/:leaseSeconds/$3/g' -e 's/:continuitySeconds/$4/g' \
		"$work/claim.sql"
	echo ";"
	echo '\o /dev/null'
	for _ in 1 2 3; do echo "execute claim(gen_random_uuid(), 'retention-worker', 300, 600);"; done
	echo '\o'
	for _ in $(seq "$repeat"); do
		echo "explain (analyze, buffers, costs off) execute claim(gen_random_uuid(), 'retention-worker', 300, 600);"
	done
	echo "rollback;"
	echo "deallocate claim;"
} > "$work/claims.sql"

psql -X -v ON_ERROR_STOP=1 -v trees="$trees" -v claims="$work/claims.sql" -d "$db" -f bench/retention-sizes.sql \
	> "$work/out.txt"
# The sizes and timings as they are; of each claim's plan only its time and the top node's buffers.
awk '/QUERY PLAN/ { plan = 1; buffers = ""; next }
	plan && /Buffers: shared/ && buffers == "" { buffers = $0; sub(/^ */, "", buffers); next }
	plan && /Execution Time/ { print "  claim: " $3 " ms, " buffers; plan = 0; next }
	!plan && !/^-+$/ && !/^\([0-9]+ rows?\)$/ && !/^(BEGIN|SET|PREPARE|ROLLBACK|DEALLOCATE)$/' "$work/out.txt"
for phase in before after; do
	times=$(awk -v phase="$phase" '/^claims (before|after) retention/ { current = $2 }
		current == phase && /Execution Time/ { print $3 }' "$work/out.txt")
	# shellcheck disable=SC2086 # one number per word
	echo "claims $phase retention: median $(median $times) ms of $(wc -w <<< "$times") (${times//$'\n'/, })"
done
