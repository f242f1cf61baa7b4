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
