-- Durable waits and the events that end them (docs/waits.md; the decision: docs/adr/0027).
--
-- A worker parks its item on an event it names by (name, key): its lease ends 'waiting' and the item
-- is blocked by the new counter open_waits until an event with that name and key arrives, or the
-- wait's deadline passes (the timer pass, on PostgreSQL's clock). Events are kept for a retention
-- window so that a wait registered after its event is matched at once.

alter table work_items add column open_waits integer not null default 0
    constraint work_items_open_waits_non_negative check (open_waits >= 0);

-- The readiness predicate (V1, V36) with the new blocker. Added NOT VALID and validated apart: the check
-- of existing rows then holds no lock that stops writers.
alter table work_items drop constraint work_items_ready_has_no_blockers;
alter table work_items add constraint work_items_ready_has_no_blockers
    check (status <> 'ready'
        or (unmet_dependencies = 0 and open_children = 0 and open_attention_requests = 0 and open_waits = 0))
    not valid;
alter table work_items validate constraint work_items_ready_has_no_blockers;
alter table work_items drop constraint work_items_blocked_has_a_blocker;
alter table work_items add constraint work_items_blocked_has_a_blocker
    check (status <> 'blocked'
        or unmet_dependencies > 0 or open_children > 0 or open_attention_requests > 0 or open_waits > 0
        or not_before is not null) not valid;
alter table work_items validate constraint work_items_blocked_has_a_blocker;

create table events (
    id          uuid        primary key,
    -- The sender's own id, when it gave one: the same id twice is one event.
    client_id   text,
    name        text        not null,
    key         text        not null,
    payload     jsonb       not null default '{}',
    received_at timestamptz not null default now(),
    -- The open waits it matched when it arrived (a repeat of its id answers with it).
    matched_waits integer     not null default 0,

    constraint events_client_id_length check (char_length(client_id) between 1 and 200),
    constraint events_name_length check (char_length(name) between 1 and 200),
    constraint events_key_length check (char_length(key) between 1 and 500),
    constraint events_payload_object check (jsonb_typeof(payload) = 'object')
);

create unique index events_client_id_idx on events (client_id) where client_id is not null;
-- A new wait looks for the latest retained event of its name and key.
create index events_name_key_idx on events (name, key, received_at desc);
-- The retention pass deletes from the oldest end.
create index events_received_at_idx on events (received_at);

create table waits (
    id            uuid        primary key,
    item_id       uuid        not null references work_items (id),
    -- The lease that registered it (ended 'waiting'); no foreign key, as for attention requests.
    lease_id      uuid        not null,
    epoch         bigint      not null,
    worker_id     text        not null,
    event_name    text        not null,
    event_key     text        not null,
    status        text        not null,
    on_timeout    text        not null,
    timeout_at    timestamptz,
    -- The event that matched it, copied ({eventId, id, name, key, payload, receivedAt}): events are
    -- deleted after their retention, the wait keeps what the next holder needs.
    matched_event jsonb,
    created_at    timestamptz not null default now(),
    resolved_at   timestamptz,

    constraint waits_status_known check (status in ('open', 'matched', 'timed_out', 'cancelled')),
    constraint waits_on_timeout_known check (on_timeout in ('ready', 'cancel', 'ask')),
    constraint waits_event_name_length check (char_length(event_name) between 1 and 200),
    constraint waits_event_key_length check (char_length(event_key) between 1 and 500),
    constraint waits_resolved_iff_not_open check ((status = 'open') = (resolved_at is null)),
    constraint waits_matched_iff_event check ((status = 'matched') = (matched_event is not null)),
    constraint waits_timed_out_only_with_deadline check (status <> 'timed_out' or timeout_at is not null)
);

-- The item view lists an item's waits in the order they were registered.
create index waits_item_idx on waits (item_id, created_at, id);
-- An event finds the open waits of its name and key.
create index waits_open_event_idx on waits (event_name, event_key) where status = 'open';
-- The timer pass finds open waits past their deadline.
create index waits_open_timeout_idx on waits (timeout_at) where status = 'open' and timeout_at is not null;

-- A wait whose deadline passed with onTimeout 'ask' holds its item with a system request of its own kind.
alter table attention_requests drop constraint attention_requests_kind_known;
alter table attention_requests add constraint attention_requests_kind_known
    check (kind in ('crash_loop', 'retries_exhausted', 'no_progress', 'wait_timed_out')) not valid;
alter table attention_requests validate constraint attention_requests_kind_known;
