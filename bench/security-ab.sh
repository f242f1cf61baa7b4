#!/usr/bin/env bash
# What access control costs: wrk's lifecycle (claim -> complete, 32 workers) against two service
# processes from the same jar, one with access control on (a worker token per connection, so every
# request is a token lookup and every complete an ownership check too) and one with it off,
# measured in alternating runs so that a busy machine's drift hits both sides alike.
#
#   bench/security-ab.sh                  # 4 rounds of 15 s per side, 32 connections
#   ROUNDS=6 RUN_SECONDS=20 bench/security-ab.sh
#
# Needs what bench/run.sh needs (PostgreSQL on 127.0.0.1:5432 as postgres, psql, wrk, a JDK 25) and
# a packaged jar (./mvnw -B -pl service -am package -DskipTests). Prints items/s per run, the ratio
# of the medians, and each round's own ratio with their median; the databases are dropped and the
# services stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-4}
RUN_SECONDS=${RUN_SECONDS:-15}
CONNECTIONS=${CONNECTIONS:-32}
PORT_ON=${PORT_ON:-18101}
PORT_OFF=${PORT_OFF:-18102}
SUPPLY=${SUPPLY:-60000}
JAR=${JAR:-$(ls service/target/work-graph-service-*.jar | head -1)}
source bench/lib.sh
JAVA=${JAVA:-$(jdk25_home)/bin/java}
THREADS=$(wrk_threads "$CONNECTIONS")
ab_setup
DB_ON=wgsecab_on_$$
DB_OFF=wgsecab_off_$$

cleanup() {
	stop_services
	"${PSQL[@]}" -d postgres -c "drop database if exists $DB_ON" -c "drop database if exists $DB_OFF" || true
	rm -rf "$RUN"
}
trap cleanup EXIT

start() { # port database extra-args...
	local port=$1 db=$2
	shift 2
	"${PSQL[@]}" -d postgres -c "create database $db"
	"$JAVA" -jar "$JAR" --server.port="$port" --spring.datasource.url="jdbc:postgresql://127.0.0.1:5432/$db" \
		--spring.datasource.username=postgres --spring.datasource.password= --spring.main.banner-mode=off "$@" \
		> "$RUN/service-$port.log" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 1 120); do
		curl -sf "http://127.0.0.1:$port/actuator/health" > /dev/null && return 0
		sleep 1
	done
	echo "service on $port did not start; its log:" >&2
	tail -30 "$RUN/service-$port.log" >&2
	exit 1
}

drain() { # database: what a run left ready is taken out of circulation, as bench/run.sh does
	"${PSQL[@]}" -d "$1" -c "
		with taken as (delete from ready_items where queue = 'ab' returning item_id)
		update work_items w set status = 'cancelled', ready_since = null, closed_at = now()
		from taken t where w.id = t.item_id;"
}

run() { # side port database workers-file -> prints items/s
	local side=$1 port=$2 db=$3 workers=$4
	ab_supply "$db" "$SUPPLY"
	local out
	out=$(WG_MODE=lifecycle WG_QUEUE=ab WG_WORKERS_FILE="$workers" WG_CONNECTIONS="$CONNECTIONS" WG_THREADS="$THREADS" \
		wrk -t "$THREADS" -c "$CONNECTIONS" -d "${RUN_SECONDS}s" -s bench/wrk/workgraph.lua "http://127.0.0.1:$port")
	drain "$db"
	local result
	result=$(echo "$out" | grep '^wg-result ' | sed 's/^wg-result //')
	local items errors seconds
	items=$(echo "$result" | sed -E 's/.*"items":([0-9]+).*/\1/')
	errors=$(echo "$result" | sed -E 's/.*"errors":([0-9]+).*/\1/')
	seconds=$(echo "$result" | sed -E 's/.*"durationUs":([0-9]+).*/\1/')
	local rate
	rate=$(awk -v i="$items" -v us="$seconds" 'BEGIN { printf "%.0f", i / (us / 1e6) }')
	echo "$side items/s=$rate errors=$errors" >&2
	echo "$rate"
}

start "$PORT_ON" "$DB_ON" --workgraph.security.bootstrap-admin-token="$ADMIN"
start "$PORT_OFF" "$DB_OFF" --workgraph.security.enabled=false

: > "$RUN/workers-on"
: > "$RUN/workers-off"
for i in $(seq 0 $((CONNECTIONS - 1))); do
	token=$(curl -sf -X POST "http://127.0.0.1:$PORT_ON/tokens" -H 'Content-Type: application/json' \
		-H "Authorization: Bearer $ADMIN" -d "{\"name\":\"ab wrk-$i\",\"role\":\"worker\",\"workerId\":\"wrk-$i\"}" |
		sed -E 's/.*"token":"([^"]+)".*/\1/')
	echo "wrk-$i $token" >> "$RUN/workers-on"
	echo "wrk-$i -" >> "$RUN/workers-off"
done

echo "warm-up ($RUN_SECONDS s each)" >&2
run on "$PORT_ON" "$DB_ON" "$RUN/workers-on" > /dev/null
run off "$PORT_OFF" "$DB_OFF" "$RUN/workers-off" > /dev/null

ON=()
OFF=()
for round in $(seq 1 "$ROUNDS"); do
	if ((round % 2)); then
		ON+=("$(run on "$PORT_ON" "$DB_ON" "$RUN/workers-on")")
		OFF+=("$(run off "$PORT_OFF" "$DB_OFF" "$RUN/workers-off")")
	else
		OFF+=("$(run off "$PORT_OFF" "$DB_OFF" "$RUN/workers-off")")
		ON+=("$(run on "$PORT_ON" "$DB_ON" "$RUN/workers-on")")
	fi
done

M_ON=$(median "${ON[@]}")
M_OFF=$(median "${OFF[@]}")
ROUND_RATIOS=$(round_ratios "${OFF[*]}" "${ON[*]}")
# shellcheck disable=SC2086 # the round ratios split into words for median
echo "security-ab: on=[${ON[*]}] off=[${OFF[*]}] median_on=$M_ON median_off=$M_OFF ratio=$(awk -v a="$M_ON" -v b="$M_OFF" 'BEGIN { printf "%.3f", a / b }') rounds_on_over_off=[$ROUND_RATIOS] median_of_rounds=$(median ${ROUND_RATIOS//,/ })"
