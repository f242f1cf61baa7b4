-- For the schema before migration V13, which built ADR 0015's alternative 4: apply it to a build
-- before V13 (e.g. commit 995ef44); on a later schema the indexes it drops no longer exist.
-- bench/ab.sh SQL_B (docs/adr/0015-item-updates-without-index-writes.md, alternative 4): as
-- status-side-tables.sql, but completed items are not parked: every
-- completion ends a lease, and its history row (written anyway) marks the item, found through a
-- partial index of lease_history. A completion then writes one index entry for its state instead
-- of a row and its entries.
\ir parked-items.sql
create index lease_history_completed_idx on lease_history (item_id) where outcome = 'completed';
create trigger parked_items_follow
    after update of status on work_items
    for each row
    when (old.status is distinct from new.status
          and (old.status in ('blocked', 'cancelled') or new.status in ('blocked', 'cancelled')))
    execute function parked_items_follow('blocked', 'cancelled');
