-- Execution leases (ADR 002). An active lease lives in `leases` (it is renewed in place); the moment
-- it ends, it is deleted from there and written once, with its outcome, to `lease_history`, which
-- never changes afterwards. All times are PostgreSQL's.

-- Leases that ended with 'expired' in a row; the crash-loop guard holds the item at a threshold.
alter table work_items add column consecutive_expirations integer not null default 0
    constraint work_items_consecutive_expirations_non_negative check (consecutive_expirations >= 0);

create table leases (
    id          uuid        primary key,
    item_id     uuid        not null references work_items (id),
    worker_id   text        not null,
    epoch       bigint      not null,
    acquired_at timestamptz not null,
    renewed_at  timestamptz,
    expires_at  timestamptz not null,

    constraint leases_one_active_per_item unique (item_id),
    constraint leases_worker_id_length check (char_length(worker_id) between 1 and 200),
    constraint leases_epoch_positive check (epoch > 0),
    constraint leases_expire_after_acquired check (expires_at > acquired_at)
);

-- The reaper's scan: leases past their expiry, oldest first.
create index leases_expires_at_idx on leases (expires_at);

create table lease_history (
    lease_id    uuid        primary key,
    item_id     uuid        not null references work_items (id),
    worker_id   text        not null,
    epoch       bigint      not null,
    acquired_at timestamptz not null,
    renewed_at  timestamptz,
    expires_at  timestamptz not null,
    ended_at    timestamptz not null,
    outcome     text        not null,
    reason      text,

    constraint lease_history_one_per_epoch unique (item_id, epoch),
    constraint lease_history_outcome_known check (outcome in
        ('completed', 'released', 'cancelled', 'decomposed', 'attention_requested', 'expired')),
    -- An expired lease ended at its expiry, whenever the reaper got round to recording it.
    constraint lease_history_expired_ends_at_expiry check (outcome <> 'expired' or ended_at = expires_at),
    constraint lease_history_reason_length check (char_length(reason) <= 2000)
);

-- Lease history is evidence: once written, a row is never changed or removed.
create function lease_history_is_append_only() returns trigger
    language plpgsql as
$$
begin
    raise exception 'lease_history is append-only: % is not allowed', tg_op
        using errcode = 'insufficient_privilege';
end;
$$;

create trigger lease_history_no_update_or_delete
    before update or delete on lease_history
    for each row execute function lease_history_is_append_only();

create trigger lease_history_no_truncate
    before truncate on lease_history
    for each statement execute function lease_history_is_append_only();
