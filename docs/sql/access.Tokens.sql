-- The statements of dev.workgraph.access.Tokens, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: INSERT
insert into access_tokens (id, name, role, worker_id, queues, create_items, event_names, secret_hash)
values (:id, :name, :role, :workerId, :queues::text[], :createItems, :eventNames::text[], :secretHash)
returning id, name, role, worker_id, queues, create_items, event_names, created_at, last_used_at, revoked_at

-- name: FIND_BY_SECRET_HASH
select id, name, role, worker_id, queues, create_items, event_names, revoked_at is not null as revoked,
    (last_used_at is null or last_used_at < now() - interval '1 minute') as last_use_stale
from access_tokens
where secret_hash = :secretHash

-- name: TOUCH_IF_STALE
update access_tokens set last_used_at = now()
where id = :id and (last_used_at is null or last_used_at < now() - interval '1 minute')

-- name: LISTENER_SESSIONS
select l.pid from listener_sessions l join pg_stat_activity a on a.pid = l.pid and a.backend_start = l.backend_start
 where a.datname = current_database()

-- name: NOW
select statement_timestamp()

-- name: ANNOUNCE_REVOCATION
select pg_notify(:channel, :tokenId)

-- name: LISTENERS_SETTLED
select s.pid from unnest(cast(:pids as int[])) as s(pid)
where not exists (select 1 from listener_sessions l join pg_stat_activity a on a.pid = l.pid and a.backend_start = l.backend_start
 where l.pid = s.pid)
    or exists (select 1 from listener_sessions l join pg_stat_activity a on a.pid = l.pid and a.backend_start = l.backend_start
 where l.pid = s.pid and l.confirmed_through >= :at)

-- name: TERMINATE_LISTENERS
select pg_terminate_backend(l.pid) from listener_sessions l join pg_stat_activity a on a.pid = l.pid and a.backend_start = l.backend_start

where l.pid = any(cast(:pids as int[])) and a.datname = current_database()

-- name: LIST
select id, name, role, worker_id, queues, create_items, event_names, created_at, last_used_at, revoked_at from access_tokens order by created_at, id

-- name: REVOKE
update access_tokens set revoked_at = coalesce(revoked_at, now()) where id = :id

-- name: LOCK_FOR_BOOTSTRAP
select pg_advisory_xact_lock(hashtext('workgraph.access.bootstrap'))

-- name: ANY_TOKEN
select exists (select 1 from access_tokens)
