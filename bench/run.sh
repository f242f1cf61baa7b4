#!/usr/bin/env bash
# Benchmark suite: raw PostgreSQL ceiling (pgbench with the service's own statements) versus
# the packaged service over HTTP driven by wrk (C) and by a JVM client, graphile-worker as a
# peer on the same server, plus batch, latency, scale, graph and reaper points.
#
#   bench/run.sh            # full run (3 repetitions everywhere, 10^7 items at the scale point)
#   bench/run.sh --quick    # fewer repetitions, 10^6 items
#   bench/run.sh --reaper-only 10   # only the 10,000-expiry point, 10 times, with its diagnostics
#   bench/run.sh --open-loop-only 3 # the service's warm-up, then only the open loop (500 claims/s), 3 times
#   bench/run.sh --scale-only 6     # only the scale points (10^3, 10^5, 10^6 items), 6 rounds of all sizes
#   bench/run.sh --scale-only 1 --full-sizes  # the same with the full run's sizes (10^7 items)
#   bench/run.sh --stream-only 4    # the service's warm-up, then only the stream point, 4 turns with graphile-worker
#   bench/run.sh --stream-latency-only  # only ready -> lease latency through the stream at 32 idle workers (~1 min)
#
# Needs a PostgreSQL server at 127.0.0.1:5432 (user postgres, trust auth), psql and pgbench,
# wrk, and a JDK 25 (JAVA_HOME if it is one, else /usr/lib/jvm/*25*); Node.js + npm for the
# peer point (without them the point reports itself as not available). Creates its own
# databases (wgbench_*) and drops them (WG_BENCH_KEEP_MAIN_DB=1 keeps the main one; a database whose
# audit through the service failed is kept too), and stops the processes it started, however it ends.
# Prints a table and a last line "bench: raw_lifecycle_32=... batch_items_per_s=N"; writes
# bench/results/<timestamp>-<mode>.json. Exits non-zero if the service answered errors or a
# check failed. Not part of ./mvnw verify.
set -euo pipefail
cd "$(dirname "$0")/.."

for arg in "$@"; do
	case "$arg" in
		--quick) ;;
		--reaper-only | --open-loop-only | --scale-only | --stream-only | --stream-latency-only | --full-sizes) ;;
		[0-9]*) ;;
		*) echo "usage: bench/run.sh [--quick] | --reaper-only N | --open-loop-only N | --scale-only N [--full-sizes] | --stream-only N | --stream-latency-only" >&2; exit 2 ;;
	esac
done

source bench/lib.sh
java_home=$(jdk25_home)
if [[ -z "$java_home" ]]; then
	echo "bench: no JDK 25 found (set JAVA_HOME to one)" >&2
	exit 1
fi

for tool in psql pgbench pg_isready wrk; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "bench: $tool not found (Debian: apt-get install postgresql-client wrk)" >&2
		exit 1
	fi
done

# Whatever version the server is: the bench only needs it to answer on 127.0.0.1:5432.
if ! pg_isready -q -h 127.0.0.1 -p 5432 -t 5; then
	echo "bench: no PostgreSQL server answers on 127.0.0.1:5432." >&2
	if command -v pg_lsclusters >/dev/null 2>&1; then
		echo "bench: the clusters on this machine (start one with: pg_ctlcluster VERSION NAME start):" >&2
		pg_lsclusters >&2 || true
	else
		echo "bench: start your server (e.g. pg_ctl -D DATADIR start, or docker compose up -d)." >&2
	fi
	exit 1
fi

jar=service/target/work-graph-service-0.1.0-SNAPSHOT.jar
# Rebuild only when the sources changed: the quick mode's five minutes are for measuring.
if [[ ! -f "$jar" || -n "$(find service/src/main client/src/main service/pom.xml client/pom.xml pom.xml -newer "$jar" -print -quit)" ]]; then
	echo "bench: building $jar"
	JAVA_HOME=$java_home ./mvnw -B -q -DskipTests -pl service -am package
fi

run_dir=$(mktemp -d -t wg-bench.XXXXXX)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	# Bench.java stops its services and drops its databases itself; this is for when it could
	# not (killed, crashed): only the processes and databases it recorded.
	if [[ -f "$run_dir/pids" ]]; then
		while read -r pid; do
			if kill -0 "$pid" 2>/dev/null; then
				kill "$pid" 2>/dev/null || true
				for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
				kill -9 "$pid" 2>/dev/null || true
			fi
		done <"$run_dir/pids"
	fi
	if [[ -f "$run_dir/databases" ]]; then
		while read -r db; do
			if [[ -f "$run_dir/kept" ]] && grep -qx "$db" "$run_dir/kept"; then continue; fi
			PGOPTIONS="-c client_min_messages=warning" psql -X -q -h 127.0.0.1 -U postgres -d postgres \
				-c "drop database if exists $db with (force)" || true
		done <"$run_dir/databases"
	fi
	rm -rf "$run_dir"
}
trap cleanup EXIT

# The stream point runs the Java worker runtime in a JVM of its own: the client's classes and
# their dependencies (Jackson), as Maven resolves them.
if [[ ! -d client/target/classes ]]; then
	JAVA_HOME=$java_home ./mvnw -B -q -DskipTests -pl client -am compile
fi
JAVA_HOME=$java_home ./mvnw -B -q -pl client dependency:build-classpath -Dmdep.outputFile="$run_dir/client.deps" >/dev/null
echo "$PWD/client/target/classes:$(cat "$run_dir/client.deps")" >"$run_dir/client.classpath"

started=$(date +%s)
status=0
"$java_home/bin/java" bench/src/Bench.java "$@" --jar "$jar" --run-dir "$run_dir" --results bench/results || status=$?
echo "bench: finished in $(($(date +%s) - started)) s"
exit $status
