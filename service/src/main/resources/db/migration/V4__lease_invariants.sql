-- Invariants the code relies on, now also enforced by the database.
-- (V2's header names the founding decision by its number before this repository had ADRs: it is
-- docs/adr/0000-execution-leases-with-fencing.md. Applied migrations are never edited.)

-- A lease never ends before it began. Every ending takes PostgreSQL's time no earlier than the
-- grant: a worker's own write can name the lease only after its claim committed, an operator's
-- cancel ends it at the moment of its statement, and an expiry at expires_at, which is after
-- acquired_at.
alter table lease_history
    add constraint lease_history_ends_after_acquired check (ended_at >= acquired_at);

-- Every claim increments the item's epoch, so an item under a lease has been claimed at least once.
alter table work_items
    add constraint work_items_leased_has_epoch check (status <> 'leased' or epoch > 0);

-- leases churns like ready_items: every claim inserts a row and every lease end deletes one, and the
-- dead entries sit where the reaper's scan and the guards' lookups start. The service vacuums both
-- tables every few seconds (QueueMaintenance); autovacuum is the second line, and must not wait for
-- a fifth of the table to be dead.
alter table leases set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0);
