-- Queues an operator can pause and cap (docs/adr: "Queues paused and capped in the claim's own SQL").
--
-- A queue exists as long as it has items; its settings live here, one row per queue an operator has
-- set something for. No row: running, no cap. Claims read this table once per statement (it holds a
-- handful of rows), so an uncapped, running queue costs the claim one probe of a tiny table.
create table queue_settings (
    name              text        primary key,
    paused            boolean     not null default false,
    max_active_leases integer,
    updated_at        timestamptz not null default now(),

    constraint queue_settings_name_length check (char_length(name) between 1 and 100),
    constraint queue_settings_max_active_leases_range check (max_active_leases between 1 and 100000)
);

-- The active leases of one queue, counted by every claim that admits an item of a capped queue.
create index leases_queue_idx on leases (queue);

-- How many more leases each of the given capped queues may grant: its cap minus its active leases,
-- at least zero. Locks the queues' settings rows (in name order, so two claims never wait for each
-- other) until the caller's transaction ends: every other claim that admits an item of these queues
-- waits here until this one has committed or rolled back. The count is a statement of its own in a
-- volatile function, so under READ COMMITTED it runs on a snapshot taken after the lock was granted
-- and sees every lease granted by the claims that held the lock before. That is what keeps the cap:
-- a count in the claim statement itself would use the snapshot the statement began with.
create function queue_headroom(wanted text[]) returns table (queue text, headroom integer)
    language plpgsql
    volatile
as $$
begin
    perform 1 from queue_settings s
    where s.name = any(wanted) and s.max_active_leases is not null
    order by s.name
    for update;
    return query
    select s.name, greatest(0, s.max_active_leases - (select count(*) from leases l where l.queue = s.name))::integer
    from queue_settings s
    where s.name = any(wanted) and s.max_active_leases is not null;
end;
$$;
