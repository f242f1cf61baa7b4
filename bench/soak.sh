#!/usr/bin/env bash
# Soak: the chaos harness (service/src/test/java/dev/workgraph/chaos) with faults for DURATION.
#
#   bench/soak.sh 10m                  # 10 minutes of load, then drain and check
#   bench/soak.sh 60s 1234567890       # rerun a seed (as closely as timing allows)
#
# Two service processes share a throwaway PostgreSQL cluster (initdb + pg_ctl in a temp
# dir, never the shared server). Every 8-25 s a fault is drawn at random: SIGKILL of
# an instance and its restart, PostgreSQL restarted (fast) or crashed (immediate), or
# the connection pool exhausted. Ends with one line:
#
#   soak: seconds=N ops=N claims=N batch_claims=N batch_completions=N stream_claims=N stream_completions=N stale_writes_rejected=N expiries=N faults=N violations=N errors_5xx=N
#
# and exits non-zero unless violations and errors_5xx are both 0. The full report
# (figures, faults, every violation, and on failure every exchange) is in
# service/target/chaos/soak/. Extra settings: CHAOS_WORKERS (16), MAVEN_ARGS.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
	echo "usage: bench/soak.sh DURATION [SEED]   (e.g. bench/soak.sh 10m)" >&2
	exit 2
fi
duration=$1
seed=${2:-}

cd "$(dirname "$0")/.."
summary_file=service/target/chaos/soak/summary.txt
rm -f "$summary_file"

args=(-B -q test -pl service -am -Dtest=ChaosSoak -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true
	"-Dchaos.duration=$duration" "-Dchaos.workers=${CHAOS_WORKERS:-16}")
if [[ -n "$seed" ]]; then
	args+=("-Dchaos.seed=$seed")
fi

status=0
# shellcheck disable=SC2086
./mvnw "${args[@]}" ${MAVEN_ARGS:-} || status=$?

if [[ ! -s "$summary_file" ]]; then
	echo "soak: no summary was written (the run failed before its checks; see service/target/surefire-reports and service/target/chaos/soak)" >&2
	exit 1
fi
summary=$(cat "$summary_file")
echo
sed -n '/^figures/,/^answers/p' service/target/chaos/soak/report.txt | sed '$d'
sed -n '/^faults/,$p' service/target/chaos/soak/report.txt | head -80
echo
echo "$summary"
violations=$(sed -E 's/.* violations=([0-9]+).*/\1/' <<<"$summary")
errors=$(sed -E 's/.* errors_5xx=([0-9]+).*/\1/' <<<"$summary")
if [[ "$violations" != 0 || "$errors" != 0 || $status != 0 ]]; then
	exit 1
fi
