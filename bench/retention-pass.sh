#!/usr/bin/env bash
# Retention's pass as the service runs it (dev.workgraph.retention.Retention), from outside the
# service, so that a benchmark can run it beside a load on one side only:
#
#   bench/retention-pass.sh DATABASE [DUTY_CYCLE]      # DUTY_CYCLE default 1: no pause
#   DAYS=90 BATCH=100 bench/retention-pass.sh wgab_b_123 0.1
#
# The roots closed more than DAYS (90) days ago, in id order, BATCH (100) at a time, each batch
# removed by retention_remove_trees() in a transaction of its own through one psql session, until
# none is left. After a batch that took t it waits t * (1 - d) / d outside any transaction, as the
# service's workgraph.retention.duty-cycle d does: a wait inside a transaction would hold a
# snapshot, and with it the vacuum of every queue table. Prints what it removed every 5 s and at
# the end (or when stopped by SIGTERM or SIGINT, after the batch under way), with the time per tree. Local server only
# (PGHOST/PGPORT/PGUSER, default 127.0.0.1:5432 postgres).
set -euo pipefail
db=${1:?usage: bench/retention-pass.sh DATABASE [DUTY_CYCLE]}
duty=${2:-1}
days=${DAYS:-90}
batch=${BATCH:-100}
awk -v d="$duty" 'BEGIN { exit !(d > 0 && d <= 1) }' || { echo "retention-pass: the duty cycle must be above 0 and at most 1" >&2; exit 2; }
# The pause per microsecond of a batch, in millionths of a microsecond: (1 - d) / d.
pause_ppm=$(awk -v d="$duty" 'BEGIN { printf "%d", 1e6 * (1 - d) / d }')

# In a session of its own, so that a signal sent to this script's process group (bench/ab.sh's
# DURING_B) does not cancel the batch under way: psql ends when this script does and its input closes.
coproc PG { exec setsid psql -X -q -At -F ' ' -v ON_ERROR_STOP=1 -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}" \
	-U "${PGUSER:-postgres}" -d "$db" 2>&1; }
ask() { # statement -> answer, its one line of output (no subshell: one fork less per batch)
	[[ -n ${PG[1]:-} ]] || { echo "retention-pass: psql ended" >&2; exit 1; }
	echo "$1" >&"${PG[1]}"
	IFS= read -r answer <&"${PG[0]}" || { echo "retention-pass: psql ended" >&2; exit 1; }
}

# As ClosedTrees: the cutoff, and the smallest UUIDv7 of its millisecond (no root at or above it
# can have closed before it).
ask "select c, (lpad(to_hex(floor(extract(epoch from c) * 1000)::bigint), 12, '0')
	|| '70008000000000000000')::uuid from (select now() - make_interval(days => $days) as c) t;"
read -r cutoff_date cutoff_time up_to <<< "$answer"
cutoff="$cutoff_date $cutoff_time"
after=00000000-0000-0000-0000-000000000000
trees=0 items=0
started=${EPOCHREALTIME/./} reported=${EPOCHREALTIME/./}

report() { # label
	awk -v label="$1" -v t="$trees" -v i="$items" -v us=$((${EPOCHREALTIME/./} - started)) \
		'BEGIN { printf "retention-pass: %s %d trees (%d items) in %.1f s, %.3f ms a tree\n", label, t, i, us / 1e6, (t > 0) ? us / 1e3 / t : 0 }'
}
trap 'report "interrupted after"; exit 0' INT TERM

while :; do
	begun=${EPOCHREALTIME/./}
	ask "
		with roots as materialized (
		    select id from work_items
		    where id > '$after' and id < '$up_to' and parent_id is null and closed_at < '$cutoff'
		    order by id limit $batch
		)
		-- One line even when the function answers no row.
		select (select count(*) from roots), coalesce((select max(id::text) from roots), '-'),
		    coalesce(r.trees, 0), coalesce(r.items, 0)
		from (select) one
		left join lateral retention_remove_trees(array(select id from roots), '$cutoff') r on true;"
	read -r count last removed_trees removed_items <<< "$answer"
	((count > 0)) || break
	trees=$((trees + removed_trees)) items=$((items + removed_items)) after=$last
	((count == batch)) || break
	pause=$(((${EPOCHREALTIME/./} - begun) * pause_ppm / 1000000))
	if ((pause > 0)); then
		printf -v seconds '%d.%06d' $((pause / 1000000)) $((pause % 1000000))
		sleep "$seconds"
	fi
	if ((${EPOCHREALTIME/./} - reported >= 5000000)); then
		reported=${EPOCHREALTIME/./}
		report "so far"
	fi
done
report removed
