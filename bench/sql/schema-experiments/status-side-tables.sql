-- For the schema before migration V13, which built ADR 0015's alternative 4: apply it to a build
-- before V13 (e.g. commit 995ef44); on a later schema the indexes it drops no longer exist.
-- bench/ab.sh SQL_B: the status out of work_items' indexes with every status listing still an
-- index range (docs/adr/0015-item-updates-without-index-writes.md, alternative 2): ready items through
-- ready_items, leased ones through leases, blocked, completed and cancelled ones parked.
\ir parked-items.sql
create trigger parked_items_follow
    after update of status on work_items
    for each row
    when (old.status is distinct from new.status
          and (old.status in ('blocked', 'completed', 'cancelled') or new.status in ('blocked', 'completed', 'cancelled')))
    execute function parked_items_follow('blocked', 'completed', 'cancelled');
