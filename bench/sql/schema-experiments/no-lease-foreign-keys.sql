-- bench/ab.sh SQL_B: the lease tables without their foreign keys to work_items, so that no
-- inserted lease or history row is checked by a query of its own
-- (docs/adr/0015-item-updates-without-index-writes.md, alternative 3).
alter table leases drop constraint leases_item_id_fkey;
alter table lease_history drop constraint lease_history_item_id_fkey;
