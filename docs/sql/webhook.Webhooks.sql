-- The statements of dev.workgraph.webhook.Webhooks, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: INSERT
insert into webhooks (id, url, types, secret, cursor, created_by)
select :id, :url, :types::text[], :secret, c.last_seq, :createdBy from change_counter c
returning id, url, types, cursor, created_at, created_by, next_attempt_at, attempts, failing_since,
          last_error, disabled_at, disabled_reason

-- name: LIST
select id, url, types, cursor, created_at, created_by, next_attempt_at, attempts, failing_since,
       last_error, disabled_at, disabled_reason
from webhooks order by created_at, id

-- name: DELETE
delete from webhooks where id = :id

-- name: EXISTS
select exists (select from webhooks where id = :id)

-- name: ANY_ENABLED
select exists (select from webhooks where disabled_at is null)

-- name: DELIVERIES
select seq, message_id, attempt, at, outcome, status, error, millis
from webhook_deliveries where webhook_id = :id order by id desc limit :limit

-- name: TAKE_DUE
update webhooks w
set dispatch_epoch = w.dispatch_epoch + 1,
    dispatch_until = now() + make_interval(secs => :holdSeconds)
where w.id in (
    select d.id from webhooks d
    where d.disabled_at is null and d.next_attempt_at <= now()
      and (d.dispatch_until is null or d.dispatch_until < now())
      and d.cursor < (select last_seq from change_counter)
    order by d.next_attempt_at
    limit :limit
    for update skip locked)
returning w.id, w.url, w.types, w.secret, w.cursor, w.attempts, w.dispatch_epoch

-- name: HEAD
select last_seq from change_counter

-- name: CHANGES_AFTER
select seq, type, item_id, lease_id, epoch, queue, at, data::text as data
from changes
where seq > :cursor and seq <= :head
  and (cardinality(:types::text[]) = 0 or type = any(:types::text[]))
order by seq limit :limit

-- name: PASS_OVER
update webhooks set cursor = :head,
    dispatch_until = now() + make_interval(secs => :holdSeconds)
where id = :id and dispatch_epoch = :epoch and cursor < :head

-- name: RECORD_DELIVERED
with moved as (
    update webhooks
    set cursor = :seq, attempts = 0, failing_since = null, last_error = null, next_attempt_at = now(),
        dispatch_until = now() + make_interval(secs => :holdSeconds)
    where id = :id and dispatch_epoch = :epoch and disabled_at is null
    returning id
)
insert into webhook_deliveries (webhook_id, seq, message_id, attempt, outcome, status, millis)
select id, :seq, :messageId, :attempt, 'delivered', :status, :millis from moved

-- name: RECORD_FAILED
with failed as (
    update webhooks w
    set attempts = w.attempts + 1,
        failing_since = coalesce(w.failing_since, now()),
        last_error = :error,
        next_attempt_at = now() + make_interval(secs => :retrySeconds),
        disabled_at = case when w.failing_since <= now() - make_interval(secs => :disableAfterSeconds)
                           then now() end,
        disabled_reason = case when w.failing_since <= now() - make_interval(secs => :disableAfterSeconds)
                               then 'every attempt failed since ' || w.failing_since || ' ('
                                    || (w.attempts + 1) || ' attempts at seq ' || :seq
                                    || '); the last: ' || :error end,
        dispatch_until = null
    where w.id = :id and w.dispatch_epoch = :epoch and w.disabled_at is null
    returning w.id, w.disabled_at is not null as disabled
), logged as (
    insert into webhook_deliveries (webhook_id, seq, message_id, attempt, outcome, status, error, millis)
    select id, :seq, :messageId, :attempt, 'failed', :status, :error, :millis from failed
)
select disabled from failed

-- name: DISABLE
update webhooks set disabled_at = now(), disabled_reason = :reason, dispatch_until = null
where id = :id and dispatch_epoch = :epoch and disabled_at is null

-- name: RELEASE
update webhooks set dispatch_until = null where id = :id and dispatch_epoch = :epoch

-- name: TRIM_DELIVERIES
delete from webhook_deliveries where id in (
    select id from (select id, at from webhook_deliveries order by id limit :batch) oldest
    where at < now() - make_interval(secs => :seconds))
