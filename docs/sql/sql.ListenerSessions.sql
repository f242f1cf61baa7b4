-- The statements of dev.workgraph.sql.ListenerSessions, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: FORGET_GONE
delete from listener_sessions l
where not exists (select 1 from pg_stat_activity a where a.pid = l.pid and a.backend_start = l.backend_start)

-- name: REGISTER
insert into listener_sessions (pid, backend_start)
select pid, backend_start from pg_stat_activity where pid = pg_backend_pid()
on conflict (pid) do update set backend_start = excluded.backend_start, registered_at = now()

-- name: ROUND_TRIP
update listener_sessions set confirmed_through = greatest(confirmed_through, cast(? as timestamptz))
where pid = pg_backend_pid()
returning statement_timestamp()
