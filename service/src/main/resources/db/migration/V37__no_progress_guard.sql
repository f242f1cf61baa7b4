-- The no-progress guard (docs/http-api.md, "No-progress guard") counts an item's latest leases from
-- lease history and checkpoints, inside the transaction that ends a lease. When a human answers one
-- of the system's requests on the item, the count starts afresh: only leases with an epoch above this
-- one count. 0 for every item so far (all its leases count).
alter table work_items add column progress_counted_after bigint not null default 0
    constraint work_items_progress_counted_after_non_negative check (progress_counted_after >= 0);
