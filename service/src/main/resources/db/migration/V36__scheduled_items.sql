-- Scheduled items (docs/http-api.md, "Scheduled items"): an item may wait for a time as well as for
-- its dependencies, children and questions. `not_before` is set exactly while that time is still a
-- blocker: while the item is blocked and its time has not been promoted yet. The promoter (the
-- reaper's pass, PostgreSQL's clock) clears it once due and, when nothing else blocks the item, moves
-- it to ready with ready_since = not_before.
--
-- Scheduled items are kept out of ready_items, so a claim never reads them: a million of them cost
-- the claim nothing. The promoter finds the due ones by a partial index that holds scheduled items
-- only; an item that is not scheduled has no entry in it, and a claim or a completion (which never
-- change not_before) stays a heap-only update.

alter table work_items add column not_before timestamptz;

alter table work_items add constraint work_items_not_before_only_when_blocked
    check (not_before is null or status = 'blocked') not valid;
alter table work_items validate constraint work_items_not_before_only_when_blocked;

-- A blocked item has at least one blocker: a counter above zero, or a time still to come.
alter table work_items drop constraint work_items_blocked_has_a_blocker;
alter table work_items add constraint work_items_blocked_has_a_blocker
    check (status <> 'blocked'
        or unmet_dependencies > 0 or open_children > 0 or open_attention_requests > 0
        or not_before is not null) not valid;
alter table work_items validate constraint work_items_blocked_has_a_blocker;

create index work_items_not_before_idx on work_items (not_before) where not_before is not null;
