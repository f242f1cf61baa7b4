-- Webhooks (docs/changes.md, "Webhooks"): each follows the change stream with a cursor of its own and
-- posts every change it asks for, in seq order, at least once, signed as Standard Webhooks.
--
-- A webhook is delivered by one dispatcher at a time (WebhookDispatcher, any instance): the dispatcher
-- takes it by raising dispatch_epoch and setting dispatch_until, and every later write of that
-- dispatcher is guarded by the epoch, so a dispatcher that stalled past its hold (and was replaced)
-- writes nothing. No connection or transaction is held while a target answers.

create table webhooks (
    id              uuid        primary key,
    url             text        not null,
    -- The change types posted; empty for all.
    types           text[]      not null default '{}',
    -- whsec_ and the key, base64: kept because every delivery is signed with it.
    secret          text        not null,
    -- The last seq handled: posted, or passed over because its type is not wanted.
    cursor          bigint      not null,
    created_at      timestamptz not null default now(),
    created_by      text,
    -- The change after the cursor is tried again from then on.
    next_attempt_at timestamptz not null default now(),
    -- Failed attempts at the change after the cursor, and since when it fails.
    attempts        integer     not null default 0,
    failing_since   timestamptz,
    last_error      text,
    disabled_at     timestamptz,
    disabled_reason text,
    dispatch_epoch  bigint      not null default 0,
    dispatch_until  timestamptz,
    constraint webhooks_disabled_with_reason check ((disabled_at is null) = (disabled_reason is null)),
    constraint webhooks_failing_with_attempts check ((failing_since is null) = (attempts = 0)),
    constraint webhooks_cursor_not_negative check (cursor >= 0)
);

-- The dispatchers' scan: enabled webhooks, soonest due first.
create index webhooks_due on webhooks (next_attempt_at) where disabled_at is null;

-- Every attempt, for GET /webhooks/{id}/deliveries; trimmed with the changes (retention).
create table webhook_deliveries (
    id         bigint      generated always as identity primary key,
    webhook_id uuid        not null references webhooks on delete cascade,
    seq        bigint      not null,
    message_id text        not null,
    attempt    integer     not null,
    at         timestamptz not null default now(),
    outcome    text        not null,
    status     integer,
    error      text,
    millis     integer     not null,
    constraint webhook_deliveries_outcome check (outcome in ('delivered', 'failed')),
    constraint webhook_deliveries_error_when_failed check ((outcome = 'failed') = (error is not null))
);

create index webhook_deliveries_latest on webhook_deliveries (webhook_id, id desc);
