-- The statements of dev.workgraph.access.Tokens, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: INSERT
insert into access_tokens (id, name, role, worker_id, queues, secret_hash)
values (:id, :name, :role, :workerId, :queues::text[], :secretHash)
returning id, name, role, worker_id, queues, created_at, last_used_at, revoked_at

-- name: FIND_BY_SECRET_HASH
select id, name, role, worker_id, queues, revoked_at is not null as revoked,
    (last_used_at is null or last_used_at < now() - interval '1 minute') as last_use_stale
from access_tokens
where secret_hash = :secretHash

-- name: TOUCH_IF_STALE
update access_tokens set last_used_at = now()
where id = :id and (last_used_at is null or last_used_at < now() - interval '1 minute')

-- name: LISTENER_SESSIONS
select pid from pg_stat_activity
where application_name = :applicationName and datname = current_database()

-- name: ANNOUNCE_REVOCATION
select pg_notify(:channel, :tokenId)

-- name: LISTENERS_GONE
select gone.pid from unnest(cast(:pids as int[])) as gone(pid)
where not exists (
    select 1 from pg_stat_activity a
    where a.pid = gone.pid and a.application_name = :applicationName
        and a.datname = current_database())

-- name: TERMINATE_LISTENERS
select pg_terminate_backend(pid) from pg_stat_activity
where pid = any(cast(:pids as int[])) and application_name = :applicationName
    and datname = current_database()

-- name: LIST
select id, name, role, worker_id, queues, created_at, last_used_at, revoked_at from access_tokens order by created_at, id

-- name: REVOKE
update access_tokens set revoked_at = coalesce(revoked_at, now()) where id = :id

-- name: LOCK_FOR_BOOTSTRAP
select pg_advisory_xact_lock(hashtext('workgraph.access.bootstrap'))

-- name: ANY_TOKEN
select exists (select 1 from access_tokens)
