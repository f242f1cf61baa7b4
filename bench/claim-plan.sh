#!/usr/bin/env bash
# Shows the query plan of the service's claim statement with N items in the table:
#
#   bench/claim-plan.sh 1000000            # EXPLAIN (ANALYZE, BUFFERS) with 10^6 items, 1,000 of them ready
#   QUEUES=default bench/claim-plan.sh 1000  # the claim with a queues filter (comma-separated names)
#   CAP=100 bench/claim-plan.sh 1000000    # the ready items' queue capped at 100 leases, another paused
#   SCHEDULED=1000000 bench/claim-plan.sh 10000000  # 10^6 of the completed items scheduled instead
#                                          # (blocked, notBefore tomorrow), and the promoter's plan too
#
# Creates a throwaway database on the local PostgreSQL (PGHOST/PGPORT/PGUSER, default
# 127.0.0.1:5432 postgres), applies the Flyway migrations with psql, bulk-loads N items
# (all completed except READY=1000 ready ones, 10 of which are preferred for the planning
# worker), reads the claim statement out of the compiled service (so the plan is of the
# statement the service runs) and explains its generic plan, the one the service uses. The
# claims run in a transaction that is rolled back; the database is dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

items=${1:?usage: bench/claim-plan.sh ITEMS}
ready=${READY:-1000}
source bench/lib.sh
throwaway_database workgraph_plan

statement=CLAIM_NEXT_READY
[[ -n "${QUEUES:-}" ]] && statement=CLAIM_NEXT_READY_IN_QUEUES
service_statement dev.workgraph.lease.claim.Claims "$statement" > "$work/claim.sql"

createdb "$db"
apply_migrations "$db"

load_completed_and_ready "$db" "$items" "$ready" plan-worker
if [[ -n "${SCHEDULED:-}" ]]; then
	# Scheduled items: blocked, not in the claim queue, found by the promoter's partial index.
	psql -q -X -v ON_ERROR_STOP=1 -d "$db" <<SQL
set synchronous_commit = off;
update work_items set status = 'blocked', closed_at = null, result = null,
    not_before = now() + interval '1 day' + (('x' || substr(id::text, 25))::bit(48)::bigint % 86400) * interval '1 second'
where id < lpad(to_hex($SCHEDULED + 1), 32, '0')::uuid;
vacuum analyze work_items;
SQL
fi
if [[ -n "${CAP:-}" ]]; then
	# The claim's admission of a capped queue (docs/adr/0019): lock, then count again.
	psql -q -X -v ON_ERROR_STOP=1 -d "$db" -c "insert into queue_settings (name, paused, max_active_leases)
		values ('default', false, $CAP), ('elsewhere', true, null)"
fi

# Named parameters become the prepared statement's parameters, typed as the service binds them.
# The service runs the lone claim with its cached generic plan (GenericPlans: plan_cache_mode =
# force_generic_plan, sent with the claim), so the plan shown is that generic plan, made before any
# argument is known.
params="uuid, text, int, float8"
args="gen_random_uuid(), 'plan-worker', 300, 600"
if [[ -n "${QUEUES:-}" ]]; then
	params+=", text[]"
	args+=", '{${QUEUES}}'"
fi
sed -e 's/:leaseId/$1/g' -e 's/:workerId/$2/g' -e 's/:leaseSeconds/$3/g' -e 's/:continuitySeconds/$4/g' \
	-e 's/:queues/$5/g' "$work/claim.sql" > "$work/bound.sql"

echo "items: $(psql -X -At -d "$db" -c 'select count(*) from work_items'), ready: $ready, scheduled: ${SCHEDULED:-0}"
if [[ -n "${SCHEDULED:-}" ]]; then
	service_statement dev.workgraph.item.BlockerCounters PROMOTE_DUE > "$work/promote.sql"
	echo "The promoter (nothing due yet):"
	{
		echo "begin;"
		echo "prepare promote(int) as"
		sed -e 's/:batchSize/$1/g' "$work/promote.sql"
		echo ";"
		echo "explain (analyze, buffers, costs off) execute promote(1000);"
		echo "rollback;"
	} | psql -X -q -v ON_ERROR_STOP=1 -d "$db" -f - | sed -n '/QUERY PLAN/,$p'
fi
{
	echo "begin;"
	echo "set local plan_cache_mode = force_generic_plan;"
	echo "prepare claim($params) as"
	cat "$work/bound.sql"
	echo ";"
	# Warm the cache with a few claims, then show the plan of the next one.
	echo '\o /dev/null'
	for _ in 1 2 3; do echo "execute claim($args);"; done
	echo '\o'
	echo "explain (analyze, buffers, costs off) execute claim($args);"
	echo "rollback;"
} | psql -X -q -v ON_ERROR_STOP=1 -d "$db" -f - | sed -n '/QUERY PLAN/,$p'
