#!/usr/bin/env bash
# The console at a million items: loads 10^6 items (SQL, generate_series) into a fresh database,
# starts the packaged service on it, and times every API call the console's pages make, over HTTP
# (median and worst of 20). Also prints the plans of the queue counts and the title search.
#
#   bench/console-million.sh [items]     # default 1000000; the database is dropped at the end
#
# Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust), psql, curl, jq and a JDK 25
# (JAVA_HOME or /usr/lib/jvm/*25*). Builds the jar when it is missing. Port: WG_CONSOLE_BENCH_PORT
# (default 18710). Figures and method: docs/console.md, "At a million items".
set -euo pipefail
cd "$(dirname "$0")/.."

ITEMS=${1:-1000000}
PORT=${WG_CONSOLE_BENCH_PORT:-18710}
DB=wgconsole_$(date -u +%Y%m%d_%H%M%S)
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres)
WG=http://127.0.0.1:$PORT
H='Content-Type: application/json'

source bench/lib.sh
java_home=$(jdk25_home)
[[ -n "$java_home" ]] || { echo "no JDK 25 found (set JAVA_HOME)" >&2; exit 1; }
jar=$(service_jar)

service_pid=""
cleanup() {
	if [[ -n "$service_pid" ]]; then
		kill "$service_pid" 2>/dev/null || true
		wait "$service_pid" 2>/dev/null || true
	fi
	"${PSQL[@]}" -d postgres -c "drop database if exists $DB" >/dev/null 2>&1 || true
}
trap cleanup EXIT

"${PSQL[@]}" -d postgres -c "create database $DB"
log=$(mktemp /tmp/console-bench-service.XXXXXX.log)
"$java_home/bin/java" -jar "$jar" --server.port="$PORT" \
	--spring.datasource.url="jdbc:postgresql://127.0.0.1:5432/$DB" --spring.datasource.username=postgres \
	--spring.datasource.password= --workgraph.security.enabled=false >"$log" 2>&1 &
service_pid=$!
for _ in $(seq 1 120); do
	curl -fs "$WG/actuator/health" >/dev/null 2>&1 && break
	sleep 1
done
curl -fs "$WG/actuator/health" >/dev/null || { echo "service did not start; log: $log" >&2; exit 1; }

echo "== loading $ITEMS items into $DB"
start=$(date +%s)
"${PSQL[@]}" -d "$DB" -v items="$ITEMS" <<'SQL'
-- Ids sort by creation like the service's UUIDv7 ones. Of every 20 items: 16 completed (each with
-- its lease in history), 2 ready, 1 blocked (alternately on a dependency and on an open question),
-- 1 leased. 20 queues; titles with words to search for.
create temporary table seed as
select n,
    (lpad(to_hex(n), 12, '0') || '7000' || '8' || substr(md5(n::text), 1, 15))::uuid as id,
    case when n % 20 < 16 then 'completed' when n % 20 < 18 then 'ready'
         when n % 20 = 18 then 'blocked' else 'leased' end as status,
    'queue-' || (n / 20 % 20) as queue,
    (n % 7) - 3 as priority,
    now() - make_interval(secs => (:items - n) * 0.5) as created_at
from generate_series(1, :items) as n;

insert into work_items (id, title, priority, queue, status, epoch, unmet_dependencies, open_attention_requests,
        created_at, updated_at, ready_since, closed_at, result)
select id,
    'Task ' || n || ': ' || (array['migrate','summarise','review','deploy','index','translate','audit','refactor'])[n / 3 % 8 + 1]
        || ' ' || (array['billing','search','the wiki','invoices','logs','certificates','onboarding','reports'])[n / 7 % 8 + 1]
        || ' ' || substr(md5(n::text), 1, 8),
    priority, queue, status,
    case when status in ('completed', 'leased') then 1 else 0 end,
    case when status = 'blocked' and n % 40 = 18 then 1 else 0 end,
    case when status = 'blocked' and n % 40 = 38 then 1 else 0 end,
    created_at, created_at,
    case when status = 'ready' then created_at end,
    case when status = 'completed' then created_at + interval '1 minute' end,
    case when status = 'completed' then '{"ok":true}'::jsonb end
from seed;

insert into ready_items (item_id, queue, priority, ready_since)
select id, queue, priority, created_at from seed where status = 'ready';

-- A dependency-blocked item waits for the ready item just before it.
insert into dependencies (item_id, depends_on_id)
select b.id, r.id from seed b join seed r on r.n = b.n - 1
where b.status = 'blocked' and b.n % 40 = 18;

insert into attention_requests (id, item_id, lease_id, epoch, worker_id, raised_by, blocking, question, context,
        opened_at)
select gen_random_uuid(), id, gen_random_uuid(), 1, 'bench-worker-' || n % 50, 'worker', true,
    'Which of the ' || n % 13 + 2 || ' variants should I keep?', '{"variants": 3}', created_at
from seed where status = 'blocked' and n % 40 = 38;

insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
select gen_random_uuid(), id, 'bench-worker-' || n % 50, 1, now(), now() + interval '2 hours', queue
from seed where status = 'leased';

insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, expires_at, ended_at, outcome)
select gen_random_uuid(), id, 'bench-worker-' || n % 50, 1, created_at, created_at + interval '5 minutes',
    created_at + interval '1 minute', 'completed'
from seed where status = 'completed';
SQL
"${PSQL[@]}" -d "$DB" -c "vacuum analyze"
echo "loaded in $(( $(date +%s) - start )) s"

echo "== an item with a neighbourhood of 50, created through the API"
post() { curl -fs -X POST "$WG$1" -H "$H" -d "$2" | jq -r .id; }
PARENT=$(post /items '{"title":"Quarterly data platform plan","queue":"queue-1"}')
HUB=$(post /items "{\"title\":\"Data platform migration\",\"queue\":\"queue-1\",\"parentId\":\"$PARENT\"}")
for i in $(seq 1 15); do
	dep=$(post /items "{\"title\":\"Prerequisite $i\",\"queue\":\"queue-2\"}")
	curl -fs -X POST "$WG/items/$HUB/dependencies" -H "$H" -d "{\"dependsOn\":\"$dep\"}" >/dev/null
done
for i in $(seq 1 20); do post /items "{\"title\":\"Migration step $i\",\"parentId\":\"$HUB\"}" >/dev/null; done
for i in $(seq 1 13); do post /items "{\"title\":\"Consumer $i\",\"dependsOn\":[\"$HUB\"]}" >/dev/null; done
"${PSQL[@]}" -d "$DB" -Atc "select count(*) || ' items, ' || count(*) filter (where status <> 'completed') || ' open' from work_items"

timed() {
	local name=$1 path=$2 times=() i
	curl -fs -o /dev/null "$WG$path" || { echo "FAILED: $path" >&2; curl -s "$WG$path" | head -c 300 >&2; exit 1; }
	for i in $(seq 1 20); do
		times+=("$(curl -fs -o /dev/null -w '%{time_total}' "$WG$path")")
	done
	printf '%s\n' "${times[@]}" | sort -n | awk -v name="$name" -v path="$path" \
		'{ t[NR] = $1 * 1000 } END { printf "| %s | `%s` | %.1f | %.1f |\n", name, path, t[int((NR + 1) / 2)], t[NR] }'
}

echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "== each call a console page makes (milliseconds over HTTP, 20 runs after one warm-up)"
echo "| page | call | median ms | worst ms |"
echo "| --- | --- | ---: | ---: |"
timed "console" "/console"
timed "console" "/console/app.js"
timed "sign-in, queues" "/queues"
timed "inbox (poll)" "/attention-requests?status=open&limit=100"
timed "items" "/items?limit=50"
NEXT=$(curl -fs "$WG/items?limit=50" | jq -r .nextCursor)
timed "items, next page" "/items?limit=50&cursor=$NEXT"
timed "items, ready in a queue" "/items?status=ready&queue=queue-3&limit=50"
timed "items, cancelled in a queue (none)" "/items?status=cancelled&queue=queue-3&limit=50"
timed "items, blocked" "/items?status=blocked&limit=50"
timed "items, leased" "/items?status=leased&limit=50"
timed "items, completed" "/items?status=completed&limit=50"
timed "items, open in a queue" "/items?status=ready,leased,blocked&queue=queue-3&limit=50"
timed "items, completed in a queue" "/items?status=completed&queue=queue-3&limit=50"
timed "items, search (common word)" "/items?q=billing&limit=50"
timed "items, search (one match)" "/items?q=$(printf '%s' 777777 | md5sum | cut -c1-8)&limit=50"
timed "items, search (no match)" "/items?q=zzzzzz&limit=50"
timed "items, search + status" "/items?q=deploy&status=blocked&limit=50"
timed "items, search in a queue (common word)" "/items?q=billing&queue=queue-3&limit=50"
timed "items, search in a queue (no match)" "/items?q=zzzzzz&queue=queue-3&limit=50"
timed "item (50 neighbours)" "/items/$HUB"
timed "item, dependents" "/items/$HUB/dependents?limit=100"
timed "item, lease timeline" "/items/$HUB/leases"
timed "item, parent" "/items/$PARENT"
SAMPLE=$("${PSQL[@]}" -d "$DB" -Atc "select id from work_items where status = 'completed' order by id offset $((ITEMS * 2 / 5)) limit 1")
timed "item (completed, with history)" "/items/$SAMPLE"
timed "item, its lease timeline" "/items/$SAMPLE/leases"

echo
echo "== plans"
# The queue counts as the packaged service sends them (read out of the jar, as claim-plan.sh reads
# the claim).
queue_counts=$(service_statement dev.workgraph.view.QueueViews QUEUE_BACKLOGS)
echo "queue counts"
"${PSQL[@]}" -d "$DB" -c "explain (analyze, buffers, costs off) $queue_counts"

# A page of items by status as ItemListing builds it, explained under the title $1: the ids of each
# source ($3 ...) merged in id order, their items joined and their status checked against $2.
page_plan() {
	local title=$1 statuses=$2 source union=""
	shift 2
	printf '\\echo %s\nexplain (analyze, buffers, costs off)\nselect w.* from (\n' "$title"
	for source in "$@"; do
		printf '%s(%s)\n' "$union" "$source"
		union=$'union all\n'
	done
	printf ") s(item_id)\njoin work_items w on w.id = s.item_id\nwhere w.status = any('{%s}'::text[])\norder by s.item_id limit 51;\n" \
		"$statuses"
}

# The lists above as ItemListing builds them (the statement depends on the filters, so it is no
# constant to read out of the jar), with the parameters written in.
{
	cat <<'SQL'
\echo search, a common word: the walk of the first 10,000 titles fills the page
explain (analyze, buffers, costs off)
select w.* from (select item_id, title from work_item_titles where item_id >= '00000000-0000-0000-0000-000000000000'
    and item_id <= 'ffffffff-ffff-ffff-ffff-ffffffffffff' order by item_id limit 10000) k
join work_items w on w.id = k.item_id
where k.title ilike '%billing%' order by w.id limit 51;
\echo search, no match: the walk, where it ended, then the trigram index's matches after it
explain (analyze, buffers, costs off)
select w.* from (select item_id, title from work_item_titles where item_id >= '00000000-0000-0000-0000-000000000000'
    and item_id <= 'ffffffff-ffff-ffff-ffff-ffffffffffff' order by item_id limit 10000) k
join work_items w on w.id = k.item_id
where k.title ilike '%zzzzzz%' order by w.id limit 51;
explain (analyze, buffers, costs off)
select greatest(item_id, '00000000-0000-0000-0000-000000000000') from work_item_titles
where item_id >= '00000000-0000-0000-0000-000000000000' order by item_id offset 10000 - 1 limit 1;
select greatest(item_id, '00000000-0000-0000-0000-000000000000') as walked_to from work_item_titles
where item_id >= '00000000-0000-0000-0000-000000000000' order by item_id offset 10000 - 1 limit 1 \gset
explain (analyze, buffers, costs off)
select w.* from (select item_id from work_item_titles where title ilike '%zzzzzz%'
    and item_id > :'walked_to' offset 0) m
cross join lateral (select * from work_items w where w.id = m.item_id offset 0) w
where true order by w.id limit 51;
\echo search in queue-3, no match: the walk of the queue's first 10,000 items, then the index's matches of that queue after them
explain (analyze, buffers, costs off)
select w.* from (select queue, id as item_id, title from work_items
    where (queue, id) >= ('queue-3', '00000000-0000-0000-0000-000000000000')
    and (queue, id) <= ('queue-3', 'ffffffff-ffff-ffff-ffff-ffffffffffff') order by queue, id limit 10000) k
join work_items w on w.id = k.item_id
where k.title ilike '%zzzzzz%' order by k.queue, w.id limit 51;
select greatest(id, '00000000-0000-0000-0000-000000000000') as walked_to from work_items
where (queue, id) >= ('queue-3', '00000000-0000-0000-0000-000000000000')
and (queue, id) <= ('queue-3', 'ffffffff-ffff-ffff-ffff-ffffffffffff') order by queue, id offset 10000 - 1 limit 1 \gset
explain (analyze, buffers, costs off)
select w.* from (select item_id from work_item_titles where queue = 'queue-3' and title ilike '%zzzzzz%'
    and item_id > :'walked_to' offset 0) m
cross join lateral (select * from work_items w where w.id = m.item_id offset 0) w
where true order by w.id limit 51;
SQL
	page_plan "cancelled in queue-3 (none)" cancelled \
		"select item_id from parked_items where status = 'cancelled' and queue = 'queue-3' order by item_id limit 51"
	page_plan "completed, first page" completed \
		"select item_id from lease_history where outcome = 'completed' order by item_id limit 51"
	page_plan "open in queue-3 (ready, leased, blocked merged)" blocked,ready,leased \
		"select item_id from parked_items where status = 'blocked' and queue = 'queue-3' order by item_id limit 51" \
		"select item_id from ready_items where true and queue = 'queue-3' order by item_id limit 51" \
		"select item_id from leases where true and queue = 'queue-3' order by item_id limit 51"
	page_plan "completed in queue-3" completed \
		"select id from work_items where queue = 'queue-3' and status = 'completed' order by id limit 51"
	cat <<'SQL'
\echo blocked, with a title: the walk, the status checked on each match
explain (analyze, buffers, costs off)
select w.* from (select item_id, title from work_item_titles where item_id >= '00000000-0000-0000-0000-000000000000'
    and item_id <= 'ffffffff-ffff-ffff-ffff-ffffffffffff' order by item_id limit 10000) k
join work_items w on w.id = k.item_id
where k.title ilike '%deploy%' and w.status = any('{blocked}'::text[]) order by w.id limit 51;
SQL
} | "${PSQL[@]}" -d "$DB"
