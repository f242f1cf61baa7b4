#!/usr/bin/env bash
# Shows the plan and cost of the metrics gauges' sample query (GaugeSamples.SAMPLE) with N items:
#
#   bench/gauge-plan.sh 10000000                  # 10^7 items, 1,000 ready over 20 queues
#   READY=100000 bench/gauge-plan.sh 10000000     # the same with a backlog of 10^5 ready items
#
# Creates a throwaway database on the local PostgreSQL (PGHOST/PGPORT/PGUSER, default
# 127.0.0.1:5432 postgres), applies the Flyway migrations with psql, bulk-loads N items: READY
# ready ones spread over QUEUES (20) queues, LEASED (1,000) leased ones with their leases, every
# other item completed; RESOLVED (100,000) answered attention requests and OPEN (100) open ones.
# Reads the statement out of the compiled service, runs it five times and explains the sixth.
# The database is dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

items=${1:?usage: bench/gauge-plan.sh ITEMS}
ready=${READY:-1000}
queues=${QUEUES:-20}
leased=${LEASED:-1000}
resolved=${RESOLVED:-100000}
open=${OPEN:-100}
source bench/lib.sh
throwaway_database workgraph_gauges
java25=${JAVA25_HOME:-$(jdk25_home)}
classes=service/target/classes
if [[ ! -f "$classes/dev/workgraph/metrics/GaugeSamples.class" ]]; then
	./mvnw -B -q -DskipTests -pl service -am compile
fi
# Loading the repository class needs the JdbcClient type, nothing else of Spring.
jdbc=$(ls "${M2:-$HOME/.m2/repository}"/org/springframework/spring-jdbc/*/spring-jdbc-*.jar | grep -v sources | tail -n 1)
"$java25/bin/java" -cp "$classes:$jdbc" bench/src/PrintStatement.java \
	dev.workgraph.metrics.GaugeSamples SAMPLE > "$work/sample.sql"

createdb "$db"
apply_migrations "$db"

psql -q -X -v ON_ERROR_STOP=1 -d "$db" <<SQL
set synchronous_commit = off;
insert into work_items (id, title, status, epoch, created_at, updated_at, closed_at, result)
select lpad(to_hex(i), 32, '0')::uuid, 'done ' || i, 'completed', 1, now(), now(), now(), '{}'
from generate_series(1, $items - $ready - $leased) i;
with ready as (
    insert into work_items (id, title, status, priority, queue, ready_since)
    select lpad(to_hex($items + i), 32, '0')::uuid, 'ready ' || i, 'ready', i % 3, 'queue-' || (i % $queues),
        clock_timestamp()
    from generate_series(1, $ready) i
    returning id, queue, priority, ready_since
)
insert into ready_items (item_id, queue, priority, ready_since)
select id, queue, priority, ready_since from ready;
with held as (
    insert into work_items (id, title, status, epoch)
    select lpad(to_hex(2 * $items + i), 32, '0')::uuid, 'leased ' || i, 'leased', 1
    from generate_series(1, $leased) i
    returning id
)
insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
select gen_random_uuid(), id, 'w', 1, now(), now() + interval '1 hour', 'default' from held;
insert into attention_requests (id, item_id, lease_id, epoch, worker_id, raised_by, blocking, question,
    status, resolution, resolved_by, resolved_at)
select gen_random_uuid(), lpad(to_hex(1 + i % ($items - $ready - $leased)), 32, '0')::uuid, gen_random_uuid(), 1,
    'w', 'worker', false, 'q?', 'resolved', 'a', 'op', now()
from generate_series(1, $resolved) i;
insert into attention_requests (id, item_id, lease_id, epoch, worker_id, raised_by, blocking, question)
select gen_random_uuid(), lpad(to_hex(2 * $items + 1 + i % $leased), 32, '0')::uuid, gen_random_uuid(), 1,
    'w', 'worker', false, 'q?'
from generate_series(1, $open) i;
vacuum analyze;
SQL

echo "items: $items, ready: $ready in $queues queues, leases: $leased, attention requests: $resolved resolved, $open open"
{
	echo '\o /dev/null'
	for _ in 1 2 3 4 5; do cat "$work/sample.sql"; echo ";"; done
	echo '\o'
	echo '\timing on'
	cat "$work/sample.sql"; echo ";"
	echo '\timing off'
	echo "explain (analyze, buffers, costs off)"
	cat "$work/sample.sql"
	echo ";"
} | psql -X -q -v ON_ERROR_STOP=1 -d "$db" -f - | grep -v '^ queue-\|^ready\|^leases\|^attention' | sed -n '/Time:/,$p'
