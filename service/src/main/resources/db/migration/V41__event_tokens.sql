-- Tokens for the systems that send events (docs/waits.md, "Who may send events"): role 'events' may
-- send POST /events and nothing else, optionally only events of some names. Null: every name.
alter table access_tokens drop constraint access_tokens_role_known;
alter table access_tokens add constraint access_tokens_role_known
    check (role in ('worker', 'operator', 'admin', 'events')) not valid;
alter table access_tokens validate constraint access_tokens_role_known;

alter table access_tokens add column event_names text[];

alter table access_tokens
    add constraint access_tokens_event_names_only_for_events check (event_names is null or role = 'events'),
    add constraint access_tokens_event_names_count
        check (event_names is null or cardinality(event_names) between 1 and 100);
