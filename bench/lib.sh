# What the bench scripts share; each sources it from the repository's root.

# Prints the JDK 25 to run with: JAVA_HOME if it is one, else the first /usr/lib/jvm/*25*;
# prints nothing when there is none.
jdk25_home() {
	if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]] \
		&& "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "25'; then
		echo "$JAVA_HOME"
		return
	fi
	local candidate
	for candidate in /usr/lib/jvm/*25*; do
		if [[ -x "$candidate/bin/java" ]]; then
			echo "$candidate"
			return
		fi
	done
}

# Prints the packaged service's jar, building it first when there is none.
service_jar() {
	local jar
	# shellcheck disable=SC2012 # the jar names are ours and plain
	jar=$(ls service/target/work-graph-service-*.jar 2>/dev/null | grep -v plain | head -n 1 || true)
	if [[ -z "$jar" ]]; then
		./mvnw -B -q -DskipTests -pl service -am package >&2
		jar=$(ls service/target/work-graph-service-*.jar | grep -v plain | head -n 1)
	fi
	echo "$jar"
}

# Prints the SQL of the statement constant $2 of the service's class $1 as the packaged jar holds
# it (so that a plan is of the statement the service runs), with bench/src/PrintStatement.java.
service_statement() {
	local jar classes
	jar=$(service_jar)
	classes=$(mktemp -d)
	(cd "$classes" && unzip -q "$OLDPWD/$jar" 'BOOT-INF/*')
	"${JAVA25_HOME:-$(jdk25_home)}/bin/java" -cp "$classes/BOOT-INF/classes:$classes/BOOT-INF/lib/*" \
		bench/src/PrintStatement.java "$1" "$2"
	rm -rf "$classes"
}

# For the scripts that read plans: points psql at the local server (PGHOST/PGPORT/PGUSER, default
# 127.0.0.1:5432 postgres) and sets db, a database name of this process's own ($1 and the pid), and
# work, a new temporary directory; both are removed when the script exits.
throwaway_database() {
	export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
	db="$1_$$"
	work=$(mktemp -d)
	trap 'dropdb --if-exists "$db" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
}

# What the A/B scripts share: RUN, their temporary directory; PSQL, psql's command line for the
# local server; ADMIN, a bootstrap admin token of the run's own; PIDS, the services they start
# (stop_services stops them).
ab_setup() {
	# Without wrk the first round would fail with nothing but the warm-up's line printed.
	command -v wrk > /dev/null || { echo "ab: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
	RUN=$(mktemp -d)
	PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres)
	ADMIN=$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
	PIDS=()
}

stop_services() {
	local pid
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}

# Prints wrk's threads for $1 connections in a closed loop: two, as pgbench's -j and bench/run.sh
# (bench/src/Pg.java, GENERATOR_THREADS); one when they do not split evenly, since
# bench/wrk/workgraph.lua gives every thread as many connections.
wrk_threads() {
	if (($1 % 2)); then echo 1; else echo 2; fi
}

# Applies the service's Flyway migrations to database $1 with psql, in version order (V10 after
# V9: a shell glob would sort it after V1). The scripts that read plans use this instead of
# starting the service.
apply_migrations() {
	local migration
	for migration in $(ls service/src/main/resources/db/migration/V*.sql | sort -V); do
		psql -q -X -v ON_ERROR_STOP=1 -d "$1" -f "$migration"
	done
}

# Makes $2 ready items in queue 'ab' of database $1, with the caller's psql command line ("${PSQL[@]}").
# Their ids are UUIDv7-shaped (bench/sql/bench-uuid7.sql), as the service makes them: the queue's head
# then lies together in the table, as in production. Random ids scatter it, so that every claim
# dirties another page and every queue vacuum reads most of the table and every index.
ab_supply() {
	"${PSQL[@]}" -d "$1" -f bench/sql/bench-uuid7.sql -c "
		with made as (
		    insert into work_items (id, title, queue, status, ready_since)
		    select bench_uuid7(clock_timestamp()), 'ab supply ' || i, 'ab', 'ready', now() from generate_series(1, $2) i
		    returning id, queue, priority, ready_since
		)
		insert into ready_items (item_id, queue, priority, ready_since) select id, queue, priority, ready_since from made;"
}

# Prints the median of its arguments (numbers).
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Prints each round's own ratio B/A, comma-separated, for two equally long lists of figures given
# as "A1 A2 … " and "B1 B2 … ": the A/B scripts run both sides once in every round, so a round's
# two figures share the machine's speed of that moment, where the sides' medians may come from
# rounds of different speeds.
round_ratios() {
	paste -d' ' <(tr ' ' '\n' <<< "$1") <(tr ' ' '\n' <<< "$2") |
		awk '{ printf "%s%.3f", (NR > 1) ? "," : "", $2 / $1 }'
}

# Bulk-loads ITEMS items into a plan script's database: all completed but READY ready ones (in
# the default queue), ids in creation order like the service's UUIDv7s (the load appends to the
# primary key); with WORKER, the 10 oldest ready items are preferred for that worker.
load_completed_and_ready() { # database items ready [worker]
	psql -q -X -v ON_ERROR_STOP=1 -d "$1" <<SQL
set synchronous_commit = off;
insert into work_items (id, title, status, epoch, created_at, updated_at, closed_at, result)
select lpad(to_hex(i), 32, '0')::uuid, 'done ' || i, 'completed', 1, now(), now(), now(), '{}'
from generate_series(1, $2 - $3) i;
with ready as (
    insert into work_items (id, title, status, priority, ready_since)
    select lpad(to_hex($2 + i), 32, '0')::uuid, 'ready ' || i, 'ready', i % 3, clock_timestamp()
    from generate_series(1, $3) i
    returning id, queue, priority, ready_since
)
insert into ready_items (item_id, queue, priority, ready_since, preferred_worker_id)
select id, queue, priority, ready_since,
    case when row_number() over (order by ready_since) <= 10 then nullif('${4:-}', '') end
from ready;
vacuum analyze work_items, ready_items;
SQL
}
