#!/usr/bin/env bash
# Benchmark suite: raw PostgreSQL ceiling (pgbench with the service's own statements) versus
# the packaged service over HTTP, plus latency, scale, graph and reaper points.
#
#   bench/run.sh            # full run (about 20 minutes; 10^7 items at the scale point)
#   bench/run.sh --quick    # under 5 minutes (fewer repetitions, 10^6 items)
#
# Needs the local PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth), pgbench and psql,
# and a JDK 25 (JAVA_HOME if it is one, else /usr/lib/jvm/*25*). Creates its own databases
# (wg_bench_*) and drops them, and stops the service processes it started, however it ends.
# Prints a table and a last line "bench: raw_lifecycle_32=... errors=N"; writes
# bench/results/<timestamp>-<mode>.json. Exits non-zero if the service answered errors or a
# check failed. Not part of ./mvnw verify.
set -euo pipefail
cd "$(dirname "$0")/.."

for arg in "$@"; do
	case "$arg" in
		--quick) ;;
		*) echo "usage: bench/run.sh [--quick]" >&2; exit 2 ;;
	esac
done

java_home=""
if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]] \
	&& "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "25'; then
	java_home=$JAVA_HOME
else
	for candidate in /usr/lib/jvm/*25*; do
		if [[ -x "$candidate/bin/java" ]]; then
			java_home=$candidate
			break
		fi
	done
fi
if [[ -z "$java_home" ]]; then
	echo "bench: no JDK 25 found (set JAVA_HOME to one)" >&2
	exit 1
fi

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
	pg_ctlcluster --skip-systemctl-redirect 15 main start
	sleep 2
fi

jar=service/target/work-graph-service-0.1.0-SNAPSHOT.jar
# Rebuild only when the sources changed: the quick mode's five minutes are for measuring.
if [[ ! -f "$jar" || -n "$(find service/src/main service/pom.xml pom.xml -newer "$jar" -print -quit)" ]]; then
	echo "bench: building $jar"
	JAVA_HOME=$java_home ./mvnw -B -q -DskipTests -pl service -am package
fi

run_dir=$(mktemp -d -t wg-bench.XXXXXX)
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
			PGOPTIONS="-c client_min_messages=warning" psql -X -q -h 127.0.0.1 -U postgres -d postgres \
				-c "drop database if exists $db with (force)" || true
		done <"$run_dir/databases"
	fi
	rm -rf "$run_dir"
}
trap cleanup EXIT

started=$(date +%s)
status=0
"$java_home/bin/java" bench/src/Bench.java "$@" --jar "$jar" --run-dir "$run_dir" --results bench/results || status=$?
echo "bench: finished in $(($(date +%s) - started)) s"
exit $status
