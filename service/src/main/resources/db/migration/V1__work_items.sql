-- Work items and the wait-for graph between them.
--
-- Readiness is incremental: every change that can block or unblock an item adjusts one of the three
-- blocker counters in the same transaction, so deciding "is it ready?" never needs a graph walk.
-- The counters are kept exact for every item, terminal ones included, so that the consistency audit
-- can compare them with a from-scratch recount without special cases.

create table work_items (
    id                      uuid        primary key,
    title                   text        not null,
    description             text,
    priority                integer     not null default 0,
    queue                   text        not null default 'default',
    metadata                jsonb       not null default '{}',
    parent_id               uuid        references work_items (id),
    result                  jsonb,
    epoch                   bigint      not null default 0,
    status                  text        not null,
    unmet_dependencies      integer     not null default 0,
    open_children           integer     not null default 0,
    open_attention_requests integer     not null default 0,
    created_at              timestamptz not null default now(),
    updated_at              timestamptz not null default now(),
    ready_since             timestamptz,
    closed_at               timestamptz,
    cancel_reason           text,

    constraint work_items_status_known
        check (status in ('blocked', 'ready', 'leased', 'completed', 'cancelled')),
    constraint work_items_title_length check (char_length(title) between 1 and 500),
    constraint work_items_description_length check (char_length(description) <= 100000),
    constraint work_items_priority_range check (priority between -1000 and 1000),
    constraint work_items_queue_name check (queue ~ '^[a-z0-9._-]{1,100}$'),
    constraint work_items_metadata_object check (jsonb_typeof(metadata) = 'object'),
    constraint work_items_not_own_parent check (parent_id <> id),
    constraint work_items_epoch_non_negative check (epoch >= 0),
    constraint work_items_counters_non_negative
        check (unmet_dependencies >= 0 and open_children >= 0 and open_attention_requests >= 0),
    -- readySince is set exactly while the item is ready, closedAt exactly while it is terminal.
    constraint work_items_ready_since_iff_ready check ((status = 'ready') = (ready_since is not null)),
    constraint work_items_closed_at_iff_terminal
        check ((status in ('completed', 'cancelled')) = (closed_at is not null)),
    -- The readiness predicate itself: ready means no blockers, blocked means at least one.
    constraint work_items_ready_has_no_blockers
        check (status <> 'ready'
            or (unmet_dependencies = 0 and open_children = 0 and open_attention_requests = 0)),
    constraint work_items_blocked_has_a_blocker
        check (status <> 'blocked'
            or unmet_dependencies > 0 or open_children > 0 or open_attention_requests > 0),
    constraint work_items_result_only_when_completed check (result is null or status = 'completed'),
    constraint work_items_cancel_reason_only_when_cancelled
        check (cancel_reason is null or status = 'cancelled'),
    constraint work_items_cancel_reason_length check (char_length(cancel_reason) <= 2000)
);

-- Listing is keyset-paginated by id (UUIDv7, so roughly creation order) within each filter.
create index work_items_status_idx on work_items (status, id);
create index work_items_queue_idx on work_items (queue, id);
create index work_items_parent_idx on work_items (parent_id, id) where parent_id is not null;

-- X depends on Y: X waits for Y to be completed.
create table dependencies (
    item_id       uuid        not null references work_items (id),
    depends_on_id uuid        not null references work_items (id),
    created_at    timestamptz not null default now(),
    primary key (item_id, depends_on_id),
    constraint dependencies_not_on_self check (item_id <> depends_on_id)
);

create index dependencies_depends_on_idx on dependencies (depends_on_id, item_id);

-- The claimable set, kept apart from work_items so that the queue head stays small: claiming deletes
-- a row here, and vacuuming this table (see QueueMaintenance) is cheap however many items exist.
-- A row exists exactly while its item's status is 'ready'; the consistency audit checks that.
create table ready_items (
    item_id             uuid        primary key references work_items (id),
    queue               text        not null,
    priority            integer     not null,
    ready_since         timestamptz not null,
    -- The worker whose lease ended with attention_requested, copied from lease history when the
    -- item became ready; drives the continuity preference and disappears with the row on claim.
    preferred_worker_id text
) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
        autovacuum_vacuum_cost_delay = 0);

-- Claim order: highest priority, then longest ready; the id breaks ties between items that became
-- ready in one transaction (UUIDv7 ids are generated in creation order).
create index ready_items_claim_order_idx on ready_items (priority desc, ready_since, item_id);
create index ready_items_queue_claim_order_idx on ready_items (queue, priority desc, ready_since, item_id);
create index ready_items_preferred_idx on ready_items (preferred_worker_id, priority desc, ready_since, item_id)
    where preferred_worker_id is not null;

-- Idempotency-Key for POST /items: the first request's body (as jsonb, so equality is JSON equality)
-- and the item it created.
create table idempotency_keys (
    key        text        primary key,
    request    jsonb       not null,
    item_id    uuid        not null references work_items (id),
    created_at timestamptz not null default now()
);

create index idempotency_keys_created_at_idx on idempotency_keys (created_at);
