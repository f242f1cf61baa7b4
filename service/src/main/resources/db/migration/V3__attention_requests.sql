-- Questions for a human. A blocking request counts in its item's open_attention_requests until it is
-- resolved; a non-blocking one is only recorded and listed.

create table attention_requests (
    id          uuid        primary key,
    item_id     uuid        not null references work_items (id),
    -- The lease that raised it: the worker's own, or for the crash-loop guard the last expired one.
    -- No foreign key, because an active lease's row moves to lease_history when it ends.
    lease_id    uuid        not null,
    epoch       bigint      not null,
    worker_id   text,
    raised_by   text        not null,
    blocking    boolean     not null,
    question    text        not null,
    context     jsonb       not null default '{}',
    status      text        not null default 'open',
    opened_at   timestamptz not null default now(),
    resolution  text,
    resolved_by text,
    resolved_at timestamptz,

    constraint attention_requests_raised_by_known check (raised_by in ('worker', 'system')),
    constraint attention_requests_worker_iff_raised_by_worker
        check ((raised_by = 'worker') = (worker_id is not null)),
    constraint attention_requests_status_known check (status in ('open', 'resolved')),
    constraint attention_requests_question_length check (char_length(question) between 1 and 20000),
    constraint attention_requests_context_object check (jsonb_typeof(context) = 'object'),
    constraint attention_requests_resolved_iff_answered check (
        (status = 'resolved') = (resolved_at is not null)
        and (status = 'resolved') = (resolution is not null)
        and (status = 'resolved') = (resolved_by is not null)),
    constraint attention_requests_resolution_length check (char_length(resolution) between 1 and 20000),
    constraint attention_requests_resolved_by_length check (char_length(resolved_by) between 1 and 200)
);

-- The item view lists an item's requests in the order they were asked.
create index attention_requests_item_idx on attention_requests (item_id, opened_at, id);
-- The operator's inbox: newest first, optionally only open ones.
create index attention_requests_inbox_idx on attention_requests (opened_at desc, id desc);
create index attention_requests_open_inbox_idx on attention_requests (opened_at desc, id desc)
    where status = 'open';
