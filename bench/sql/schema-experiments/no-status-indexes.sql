-- For the schema before migration V13, which built ADR 0015's alternative 4: apply it to a build
-- before V13 (e.g. commit 995ef44); on a later schema the indexes it drops no longer exist.
-- bench/ab.sh SQL_B: work_items without any index on its status, so that the claim's and the
-- completion's updates can be heap-only (HOT). What HOT could give at most: the API's status
-- filters would lose their index (docs/adr/0015-item-updates-without-index-writes.md, alternative 1).
drop index work_items_status_idx;
drop index work_items_open_by_queue_idx;
drop index work_items_queue_status_idx;
-- Room on each page for the updated versions of its rows (new pages only).
alter table work_items set (fillfactor = 60);
