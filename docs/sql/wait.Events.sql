-- The statements of dev.workgraph.wait.Events, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: INSERT_EVENT
insert into events as e (id, client_id, name, key, payload)
values (:id, :clientId, :name, :key, coalesce(:payload::jsonb, '{}'))
on conflict (client_id) where client_id is not null do nothing
returning jsonb_build_object('eventId', e.id, 'id', e.client_id, 'name', e.name, 'key', e.key,
    'payload', e.payload,
    'receivedAt', to_char(e.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text as matched_event

-- name: EVENT_BY_CLIENT_ID
select id, matched_waits from events where client_id = :clientId

-- name: COUNT_MATCHED
update events set matched_waits = :matched where id = :id

-- name: LATEST_RETAINED
select jsonb_build_object('eventId', e.id, 'id', e.client_id, 'name', e.name, 'key', e.key,
    'payload', e.payload,
    'receivedAt', to_char(e.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text as matched_event
from events e
where e.name = :name and e.key = :key
    and e.received_at > now() - make_interval(secs => :retentionSeconds)
order by e.received_at desc, e.id desc
limit 1

-- name: DELETE_EXPIRED
delete from events
where id = any(array(
    select id from events
    where received_at <= now() - make_interval(secs => :retentionSeconds)
    order by received_at
    limit :limit))
