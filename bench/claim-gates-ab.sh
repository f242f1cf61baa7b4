#!/usr/bin/env bash
# What the queue gates (pause and cap, docs/adr/0021) cost a claim on queues that have neither:
# pgbench runs the service's claim statement as the service runs it (B) and the same statement with
# its two gates written out as `true` (A), in alternating rounds on one database, and prints each
# side's transactions per second, the ratio B/A per round and its median.
#
#   bench/claim-gates-ab.sh              # 5 x 10^5 items, 400,000 of them ready, 8 clients, 4 rounds of 15 s
#   ITEMS=1000000 READY=600000 CLIENTS=32 ROUNDS=6 bench/claim-gates-ab.sh
#
# Each transaction claims one item with the service's cached generic plan and commits, as the
# service's claim does; the ready items must last every round (the script says so when they ran
# out), and dead rows are vacuumed away between runs. (Rolling each claim back instead keeps
# claiming the same few rows, whose aborted versions pile up until a claim takes tens of ms.) The gates' text
# is read out of the compiled service (QueueGates.OPEN and ADMITS_ONE) and replaced exactly, so
# side A is the statement the service would run without them. Needs psql and pgbench; the
# database is dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

items=${ITEMS:-500000}
ready=${READY:-400000}
clients=${CLIENTS:-8}
rounds=${ROUNDS:-4}
seconds=${SECONDS_PER_ROUND:-15}
source bench/lib.sh
throwaway_database workgraph_gates

service_statement dev.workgraph.lease.claim.Claims CLAIM_NEXT_READY > "$work/claim.sql"
service_statement dev.workgraph.lease.claim.QueueGates OPEN > "$work/open.txt"
service_statement dev.workgraph.lease.claim.QueueGates ADMITS_ONE > "$work/admits.txt"
service_statement dev.workgraph.lease.claim.QueueGates GATES > "$work/gates.txt"

createdb "$db"
apply_migrations "$db"
load_completed_and_ready "$db" "$items" "$ready"

# The service binds :leaseId, :workerId, :leaseSeconds and :continuitySeconds.
python3 - "$work" <<'PY'
import pathlib, sys
work = pathlib.Path(sys.argv[1])
claim = work.joinpath("claim.sql").read_text()
gates = [work.joinpath(name).read_text() for name in ("open.txt", "admits.txt")]
for gate in gates:
    if claim.count(gate) < 1:
        sys.exit("claim-gates-ab: the claim statement no longer contains a gate:\n" + gate)
# The CTE the gates read goes too (its text, then the comma after it).
cte = work.joinpath("gates.txt").read_text() + ", "
if claim.count(cte) != 1:
    sys.exit("claim-gates-ab: the claim statement no longer starts with the gates' CTE:\n" + cte)
ungated = claim.replace(cte, "")
for gate in gates:
    ungated = ungated.replace(gate, "true")
def script(sql):
    bound = (sql.replace(":leaseId::uuid", "gen_random_uuid()").replace(":leaseId", "gen_random_uuid()")
             .replace(":workerId", "'gates-worker'").replace(":leaseSeconds", "300")
             .replace(":continuitySeconds", "600"))
    return "begin;\nset local plan_cache_mode = force_generic_plan;\n" + bound.strip() + ";\ncommit;\n"
work.joinpath("B.sql").write_text(script(claim))
work.joinpath("A.sql").write_text(script(ungated))
PY

run() { # side -> transactions per second
	psql -q -X -d "$db" -c "vacuum ready_items, work_items, leases, change_pending"
	pgbench -n -M prepared -c "$clients" -j 2 -T "$seconds" -f "$work/$1.sql" "$db" 2>&1 |
		awk '/^tps = / { printf "%.0f", $3 }'
}
echo "claim-gates-ab: $items items, $ready ready, $clients clients, load $(cut -d' ' -f1-3 /proc/loadavg); warm-up" >&2
run A > /dev/null
run B > /dev/null
A=() B=() ratios=()
for round in $(seq 1 "$rounds"); do
	if ((round % 2)); then a=$(run A); b=$(run B); else b=$(run B); a=$(run A); fi
	A+=("$a") B+=("$b") ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')")
	echo "round $round: A (no gates) $a tps, B (as the service runs it) $b tps, B/A ${ratios[-1]}" >&2
done
left=$(psql -X -At -d "$db" -c "select count(*) from ready_items")
if ((left == 0)); then
	echo "claim-gates-ab: the ready items ran out, so later claims found nothing; raise READY" >&2
fi
echo "claim-gates-ab: A=[${A[*]}] B=[${B[*]}] rounds_b_over_a=[${ratios[*]}] median_of_rounds=$(median "${ratios[@]}")"
