#!/usr/bin/env bash
# The long-poll measurements (docs/adr/0008, docs/performance-journal.md "Long-poll claims"): wake-up latency
# with 32 waiting workers, and the idle cost of 1,000 waiting claims. Starts one service process from
# the packaged jar on a fresh database of the PostgreSQL at 127.0.0.1:5432 (user postgres), runs
# bench/src/LongPoll.java against it, stops it and drops the database.
#
#   bench/longpoll.sh            # port 18501 unless WG_LONGPOLL_PORT is set
set -euo pipefail
cd "$(dirname "$0")/.."

source bench/lib.sh
java_home=$(jdk25_home)
[[ -n "$java_home" ]] || { echo "longpoll: no JDK 25 found (set JAVA_HOME to one)" >&2; exit 1; }
pg_isready -q -h 127.0.0.1 -p 5432 -t 5 || { echo "longpoll: no PostgreSQL answers on 127.0.0.1:5432" >&2; exit 1; }

jar=service/target/work-graph-service-0.1.0-SNAPSHOT.jar
if [[ ! -f "$jar" || -n "$(find service/src/main service/pom.xml pom.xml -newer "$jar" -print -quit)" ]]; then
	echo "longpoll: building $jar"
	JAVA_HOME=$java_home ./mvnw -B -q -DskipTests -Djacoco.skip=true -pl service -am package
fi

port=${WG_LONGPOLL_PORT:-18501}
db=wglongpoll_$(date +%Y%m%d_%H%M%S)
token=wgbench-longpoll-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
log=$(mktemp -t wg-longpoll.XXXXXX.log)
pid=""
cleanup() {
	if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	PGOPTIONS="-c client_min_messages=warning" psql -X -q -h 127.0.0.1 -U postgres -d postgres \
		-c "drop database if exists $db with (force)" || true
}
trap cleanup EXIT

psql -X -q -h 127.0.0.1 -U postgres -d postgres -c "create database $db"
SPRING_DATASOURCE_URL=jdbc:postgresql://127.0.0.1:5432/$db SPRING_DATASOURCE_USERNAME=postgres \
	SPRING_DATASOURCE_PASSWORD= WORKGRAPH_EMBEDDED_DATABASE_ENABLED=false SERVER_PORT=$port \
	WORKGRAPH_SECURITY_BOOTSTRAP_ADMIN_TOKEN=$token \
	"$java_home/bin/java" -jar "$jar" >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
	curl -sf "http://127.0.0.1:$port/actuator/health/readiness" >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || { echo "longpoll: the service died; its log: $log" >&2; exit 1; }
	sleep 0.5
done
echo "longpoll: service pid $pid on port $port, database $db, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$java_home/bin/java" bench/src/LongPoll.java "$port" "$pid" "$db" "$token"
echo "longpoll: load average after $(cut -d' ' -f1-3 /proc/loadavg); service log $log"
