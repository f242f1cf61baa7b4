-- Deadlines for questions (docs/http-api.md, "Deadlines for questions"): an attention request may
-- carry a deadline and what happens at it: 'escalate' (it stays open, marked escalated, for the label
-- in escalate_to), 'default' (the system answers it with default_resolution) or 'cancel' (the item is
-- cancelled). The timer pass applies it on PostgreSQL's clock.
alter table attention_requests
    add column timeout_at         timestamptz,
    add column on_timeout         text,
    add column default_resolution text,
    add column escalate_to        text,
    add column escalated_at       timestamptz;

alter table attention_requests
    add constraint attention_requests_on_timeout_known
        check (on_timeout in ('escalate', 'default', 'cancel')),
    add constraint attention_requests_deadline_iff_action check ((timeout_at is null) = (on_timeout is null)),
    add constraint attention_requests_default_resolution_iff_default
        check ((on_timeout = 'default') = (default_resolution is not null)),
    add constraint attention_requests_default_resolution_length
        check (char_length(default_resolution) between 1 and 20000),
    add constraint attention_requests_escalate_to_only_when_escalating
        check (escalate_to is null or on_timeout = 'escalate'),
    add constraint attention_requests_escalate_to_length check (char_length(escalate_to) between 1 and 200),
    add constraint attention_requests_escalated_only_when_escalating
        check (escalated_at is null or on_timeout = 'escalate');

-- The timer pass finds open requests past their deadline that it has not escalated yet.
create index attention_requests_open_deadline_idx on attention_requests (timeout_at)
    where status = 'open' and timeout_at is not null and escalated_at is null;
