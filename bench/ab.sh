#!/usr/bin/env bash
# Two builds (or two settings) of the service side by side: wrk's closed loop against two service
# processes, each on its own database, in alternating rounds so that a busy machine's drift hits
# both sides alike. Access control is on for both (a worker token per connection). Prints items/s
# and the service's and wrk's CPU per item for every round, then the medians, their ratio B/A, and
# each round's own ratio B/A with the median of those (a round runs both sides, one after the other,
# so its ratio is the steadier figure when the machine's speed drifts).
#
#   JAR_B=/tmp/new.jar bench/ab.sh                       # the packaged jar (A) against another (B)
#   JAVA_OPTS_B="-Xmx256m" ROUNDS=6 bench/ab.sh           # one jar, two JVM settings
#   ARGS_B="--workgraph.coalescing.group-commit=false" MODE=batch bench/ab.sh
#   ARGS_B="--workgraph.metrics.gauge-interval=0s" MODE=open ROUNDS=6 bench/ab.sh
#   SQL_B=bench/sql/schema-experiments/no-lease-foreign-keys.sql MODE=batch CONNECTIONS=8 bench/ab.sh
#   TREES=1000000 SQL_A=bench/sql/closed-trees.sql SQL_B=bench/sql/closed-trees.sql \
#       DURING_B='bench/retention-pass.sh "$AB_DATABASE" 0.1' bench/ab.sh   # claims while retention removes a year's trees
#
# MODE=open compares tails instead of rates: each round is a 5 s lead-in and then RUN_SECONDS of
# claims due at RATE per second (default 500, as bench/run.sh's open loop), and the figure per
# round is the claim p99 in ms, counted from when each claim was due.
#
# Settings: JAR_A, JAR_B (default: the packaged jar), JAVA_OPTS_A/B (default -Xms256m -Xmx256m
# -XX:+UseSerialGC, as bench/run.sh), ARGS_A/B (service arguments), MODE (lifecycle, renew, chained or batch; see
# bench/wrk/workgraph.lua, or open), ROUNDS (default 4), RUN_SECONDS (15), WARM_SECONDS (60: C2 is still compiling after 30 s on two cores),
# CONNECTIONS (32), THREADS (wrk's threads for them: 2, as bench/run.sh; THREADS_A/THREADS_B per
# side; the open loop needs one per connection), MODE_A/MODE_B (one side's wrk mode instead of
# MODE, e.g. MODE_B=chained against the lifecycle on one jar), SUPPLY_PER_SECOND (ready items per second of a run: 5,000, batch 15,000),
# SQL_A/SQL_B (a psql script run on that side's database once the service has migrated it, before
# the warm-up: a schema experiment, see bench/sql/schema-experiments/), SETUP_A/SETUP_B (a shell
# command run before each of that side's runs, the warm-up included: a machine setting compared
# on one jar, e.g. the guest's halt polling; SETUP_A runs once more on exit, so it should restore
# the machine's own setting), DURING_A/DURING_B (a shell command run in the background during each
# of that side's runs, the warm-up included, and stopped with SIGTERM when the run ends; AB_DATABASE
# names the side's database: work of the database's own that the side's claims must share it with,
# e.g. retention's removal above; its last line of output is printed after each round), CHANGE_DELAY (set: a subscriber of side B's change stream,
# bench/change-delay.py, prints each round's delay from a change to its event, p50/p99/max).
# Needs what bench/run.sh needs. The databases are dropped and the services
# stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
ROUNDS=${ROUNDS:-4}
RUN_SECONDS=${RUN_SECONDS:-15}
WARM_SECONDS=${WARM_SECONDS:-60}
CONNECTIONS=${CONNECTIONS:-32}
MODE=${MODE:-lifecycle}
# wrk's threads: two, as bench/run.sh's closed loops (and pgbench's -j); the open loop paces each
# connection and needs one thread per connection.
THREADS=${THREADS:-$([[ $MODE == open ]] && echo "$CONNECTIONS" || wrk_threads "$CONNECTIONS")}
RATE=${RATE:-500}
OPEN_LEAD_SECONDS=5
# Items made ready before each run, per second of it; every run starts from the same state. A run
# that uses them all up measures the supply, not the service: it is flagged (raise this then).
SUPPLY_PER_SECOND=${SUPPLY_PER_SECOND:-$([[ ${MODE:-lifecycle} == batch ]] && echo 15000 || echo 5000)}
DEFAULT_JAR=$(ls service/target/work-graph-service-*.jar | head -1)
JAR_A=${JAR_A:-$DEFAULT_JAR}
JAR_B=${JAR_B:-$DEFAULT_JAR}
JAVA_OPTS_A=${JAVA_OPTS_A:--Xms256m -Xmx256m -XX:+UseSerialGC}
JAVA_OPTS_B=${JAVA_OPTS_B:--Xms256m -Xmx256m -XX:+UseSerialGC}
JAVA=${JAVA:-$(jdk25_home)/bin/java}
PORT_A=${PORT_A:-18121}
PORT_B=${PORT_B:-18122}
ab_setup
DB_A=wgab_a_$$
DB_B=wgab_b_$$
declare -A PID_OF

cleanup() {
	if [[ -n "${SETUP_A:-}" ]]; then bash -c "$SETUP_A" || true; fi
	stop_services
	"${PSQL[@]}" -d postgres -c "drop database if exists $DB_A with (force)" \
		-c "drop database if exists $DB_B with (force)" || true
	rm -rf "$RUN"
}
trap cleanup EXIT

start() { # side port database jar java-opts args
	local side=$1 port=$2 db=$3 jar=$4 opts=$5 args=$6
	"${PSQL[@]}" -d postgres -c "create database $db"
	# shellcheck disable=SC2086 # options and arguments are word lists
	"$JAVA" $opts -jar "$jar" --server.port="$port" --spring.datasource.url="jdbc:postgresql://127.0.0.1:5432/$db" \
		--spring.datasource.username=postgres --spring.datasource.password= --spring.main.banner-mode=off \
		--workgraph.security.bootstrap-admin-token="$ADMIN" $args > "$RUN/service-$side.log" 2>&1 &
	PIDS+=($!)
	PID_OF[$side]=$!
	for _ in $(seq 1 120); do
		curl -sf "http://127.0.0.1:$port/actuator/health" > /dev/null && break
		sleep 1
	done
	curl -sf "http://127.0.0.1:$port/actuator/health" > /dev/null || {
		echo "service $side did not start; its log:" >&2
		tail -30 "$RUN/service-$side.log" >&2
		exit 1
	}
	: > "$RUN/workers-$side"
	for i in $(seq 0 $((CONNECTIONS - 1))); do
		local token
		token=$(curl -sf -X POST "http://127.0.0.1:$port/tokens" -H 'Content-Type: application/json' \
			-H "Authorization: Bearer $ADMIN" -d "{\"name\":\"ab wrk-$i\",\"role\":\"worker\",\"workerId\":\"wrk-$i\"}" |
			sed -E 's/.*"token":"([^"]+)".*/\1/')
		echo "wrk-$i $token" >> "$RUN/workers-$side"
	done
}

supply() { # database seconds
	ab_supply "$1" $(($2 * SUPPLY_PER_SECOND))
	settle_outbox "$1"
}

# A build with the change outbox writes a change for every supplied item (created, ready), and
# its sequencer numbers them after the supply commits: some 10^5 rows, seconds of PostgreSQL's
# time that would land in the round that follows. Wait until they are numbered, so that a round
# measures the load it drives, as on a build without the outbox.
settle_outbox() { # database
	local pending
	[[ $("${PSQL[@]}" -At -d "$1" -c "select to_regclass('change_pending') is not null") == t ]] || return 0
	for _ in $(seq 1 120); do
		pending=$("${PSQL[@]}" -At -d "$1" -c "select count(*) from change_pending")
		((pending == 0)) && return
		sleep 0.5
	done
	echo "ab: $pending changes still waited for the sequencer after 60 s" >&2
}

supply_open() { # database seconds: what RATE claims per second need, and a second more
	SUPPLY_PER_SECOND=$RATE supply "$1" $(($2 + 1))
}

drain() { # database: what a run left ready is taken out of circulation
	"${PSQL[@]}" -d "$1" -c "
		with taken as (delete from ready_items where queue = 'ab' returning item_id)
		update work_items w set status = 'cancelled', ready_since = null, closed_at = now()
		from taken t where w.id = t.item_id;"
	# Dead rows of the run vacuumed away, so that no run inherits another's bloat.
	"${PSQL[@]}" -d "$1" -c "vacuum ready_items, leases, work_items"
	settle_outbox "$1"
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

wrk_run() { # side port seconds -> wrk's output, then a line "generator-cpu-seconds N"
	local side=$1 port=$2 seconds=$3
	local side_mode="MODE_$side" side_threads="THREADS_$side"
	local threads=${!side_threads:-$THREADS}
	local TIMEFORMAT="generator-cpu-seconds %U %S"
	{ time WG_MODE=${!side_mode:-$MODE} WG_QUEUE=ab WG_WORKERS_FILE="$RUN/workers-$side" WG_RATE=$RATE \
		WG_SECONDS=$seconds WG_CONNECTIONS=$CONNECTIONS WG_THREADS=$threads \
		wrk -t "$threads" -c "$CONNECTIONS" -d "${seconds}s" -s bench/wrk/workgraph.lua "http://127.0.0.1:$port"; } 2>&1
}

# Prints "figure service-ms-per-item": items/s, or in MODE=open the claim p99 in ms.
run() { # side port database seconds
	local side=$1 port=$2 db=$3 seconds=$4
	local before out after setup="SETUP_$side"
	if [[ -n "${!setup:-}" ]]; then bash -c "${!setup}"; fi
	if [[ $MODE == open ]]; then
		supply_open "$db" $((seconds + OPEN_LEAD_SECONDS))
		wrk_run "$side" "$port" "$OPEN_LEAD_SECONDS" > /dev/null
	else
		supply "$db" "$seconds"
	fi
	local during="DURING_$side" during_pid=
	if [[ -n "${!during:-}" ]]; then
		AB_DATABASE=$db setsid bash -c "${!during}" > "$RUN/during-$side.log" 2>&1 &
		during_pid=$!
	fi
	local delay_file="$RUN/change-delay-$side" watcher=
	if [[ -n "${CHANGE_DELAY:-}" && $side == B ]]; then
		# During the warm-up too, unreported: the stream's own path is compiled by then.
		bench/change-delay.py "http://127.0.0.1:$port" "$ADMIN" "$seconds" > "$delay_file" &
		watcher=$!
	fi
	before=$(cpu_ticks "${PID_OF[$side]}")
	out=$(wrk_run "$side" "$port" "$seconds")
	after=$(cpu_ticks "${PID_OF[$side]}")
	if [[ -n $during_pid ]]; then
		# Its whole process group: the command and whatever it started. SIGTERM, as a command
		# started in the background by a script ignores SIGINT.
		kill -TERM -- "-$during_pid" 2> /dev/null || true
		wait "$during_pid" || true
		[[ -n ${WARMING:-} ]] || echo "ab: side $side's DURING_$side: $(tail -1 "$RUN/during-$side.log")" >&2
	fi
	if [[ -n $watcher ]]; then
		wait "$watcher" || true
		[[ -n ${WARMING:-} ]] ||
			echo "ab: side B's change stream (lease.ended, from the change's transaction start): $(cat "$delay_file")" >&2
	fi
	drain "$db"
	local result items errors us p99 complete_p99 generator batches empty
	result=$(echo "$out" | grep '^wg-result ' | sed 's/^wg-result //')
	items=$(echo "$result" | sed -E 's/.*"items":([0-9]+).*/\1/')
	errors=$(echo "$result" | sed -E 's/.*"errors":([0-9]+).*/\1/')
	batches=$(echo "$result" | sed -E 's/.*"batches":([0-9]+).*/\1/')
	empty=$(echo "$result" | sed -E 's/.*"emptyClaims":([0-9]+).*/\1/')
	us=$(echo "$result" | sed -E 's/.*"durationUs":([0-9]+).*/\1/')
	p99=$(echo "$result" | sed -E 's/.*"claimUs":\{[^}]*"p99":([0-9.]+).*/\1/')
	complete_p99=$(echo "$result" | sed -E 's/.*"completeUs":\{[^}]*"p99":([0-9.]+).*/\1/')
	generator=$(echo "$out" | awk '/^generator-cpu-seconds / { print $2 + $3 }')
	if [[ $MODE != open ]] && ((items * 100 >= seconds * SUPPLY_PER_SECOND * 97)); then
		echo "ab: side $side used up its supply ($items of $((seconds * SUPPLY_PER_SECOND)) items): the rate is the supply's; raise SUPPLY_PER_SECOND" >&2
	fi
	awk -v i="$items" -v us="$us" -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v side="$side" -v e="$errors" \
		-v open="$([[ $MODE == open ]] && echo 1 || echo 0)" -v p99="$p99" -v cp99="$complete_p99" -v at="$(date -u +%H:%M:%S)" -v g="$generator" -v b="$batches" -v empty="$empty" \
		'BEGIN { rate = i / (us / 1e6); cpu = (i > 0) ? t * 1000 / hz / i : 0;
		         printf "%.2f %.3f\n", open ? p99 / 1000 : rate, cpu;
		         printf "%s items/s=%.0f claim_p99_ms=%.2f complete_p99_ms=%.2f service_ms_per_item=%.3f generator_ms_per_item=%.3f errors=%d empty_claims=%d%s at=%s\n", side, rate, p99 / 1000, cp99 / 1000, cpu, (i > 0) ? g * 1000 / i : 0, e, empty, (b > 0) ? sprintf(" items_per_batch=%.1f", i / b) : "", at > "/dev/stderr" }'
}

start A "$PORT_A" "$DB_A" "$JAR_A" "$JAVA_OPTS_A" "${ARGS_A:-}"
start B "$PORT_B" "$DB_B" "$JAR_B" "$JAVA_OPTS_B" "${ARGS_B:-}"
for side in A B; do
	sql="SQL_$side" db="DB_$side"
	if [[ -n "${!sql:-}" ]]; then
		echo "ab: side $side's database altered by ${!sql}" >&2
		"${PSQL[@]}" -d "${!db}" -f "${!sql}"
	fi
done

echo "ab: $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg); warm-up ($WARM_SECONDS s each; its two lines are not counted)" >&2
# The warm-up is the closed loop (MODE=open too): C2 compiles what the lifecycle runs.
WARM_MODE=$([[ $MODE == open ]] && echo lifecycle || echo "$MODE")
WARMING=1 MODE=$WARM_MODE run A "$PORT_A" "$DB_A" "$WARM_SECONDS" > /dev/null
WARMING=1 MODE=$WARM_MODE run B "$PORT_B" "$DB_B" "$WARM_SECONDS" > /dev/null

A_RATE=() B_RATE=() A_CPU=() B_CPU=()
for round in $(seq 1 "$ROUNDS"); do
	for side in $( ((round % 2)) && echo "A B" || echo "B A"); do
		if [[ $side == A ]]; then
			read -r rate cpu < <(run A "$PORT_A" "$DB_A" "$RUN_SECONDS")
			A_RATE+=("$rate") A_CPU+=("$cpu")
		else
			read -r rate cpu < <(run B "$PORT_B" "$DB_B" "$RUN_SECONDS")
			B_RATE+=("$rate") B_CPU+=("$cpu")
		fi
	done
done

MA=$(median "${A_RATE[@]}") MB=$(median "${B_RATE[@]}")
CA=$(median "${A_CPU[@]}") CB=$(median "${B_CPU[@]}")
ROUND_RATIOS=$(round_ratios "${A_RATE[*]}" "${B_RATE[*]}")
# shellcheck disable=SC2086 # the round ratios split into words for median
echo "ab: mode=$MODE A=[${A_RATE[*]}] B=[${B_RATE[*]}] median_a=$MA median_b=$MB ratio=$(awk -v a="$MA" -v b="$MB" 'BEGIN { printf "%.3f", b / a }') rounds_b_over_a=[$ROUND_RATIOS] median_of_rounds=$(median ${ROUND_RATIOS//,/ }) service_ms_per_item a=$CA b=$CB"
