-- Checkpoints: what a lease holder saved of its progress, so that the next holder of the item resumes
-- instead of starting over. Written only under the item's current lease (the same guard as every lease
-- mutation, in the statement that writes), numbered per item, and never changed afterwards: like lease
-- history, they are evidence of what each holder acknowledged.

create table checkpoints (
    item_id    uuid        not null references work_items (id),
    -- 1, 2, … per item, in the order written (under the item's row lock, so without gaps).
    seq        bigint      not null,
    -- The lease that wrote it; no foreign key, because an active lease's row moves to lease_history
    -- when it ends.
    lease_id   uuid        not null,
    epoch      bigint      not null,
    worker_id  text        not null,
    data       jsonb       not null,
    created_at timestamptz not null default now(),

    -- The item view reads the newest one and the list pages backwards: both walk this key.
    primary key (item_id, seq),
    constraint checkpoints_seq_positive check (seq > 0),
    constraint checkpoints_epoch_positive check (epoch > 0),
    constraint checkpoints_data_object check (jsonb_typeof(data) = 'object')
);

create function checkpoints_are_append_only() returns trigger
    language plpgsql as
$$
begin
    raise exception 'checkpoints are append-only: % is not allowed', tg_op
        using errcode = 'insufficient_privilege';
end;
$$;

create trigger checkpoints_no_update_or_delete
    before update or delete on checkpoints
    for each row execute function checkpoints_are_append_only();

create trigger checkpoints_no_truncate
    before truncate on checkpoints
    for each statement execute function checkpoints_are_append_only();
