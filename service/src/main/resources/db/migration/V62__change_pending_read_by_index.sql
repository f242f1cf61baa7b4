-- The sequencer read change_pending whole, with a sequential scan, every pass (20 ms). That is cheap
-- while the table is a few pages, but the table is never truncated (vacuum_truncate = false, as for
-- the other queue tables, V12): after a burst of changes (a bulk creation of 300,000 items writes
-- 600,000) it keeps every page, empty, and each pass read all of them. Measured: 10,045 empty pages,
-- 11.4 ms a pass to find 138 rows, some 0.5 of a core of PostgreSQL at 50 passes a second, for good.
-- Through this index a pass reads only the entries of rows that are there (and, until the next queue
-- vacuum, those of the rows the last pass moved), however large the table once grew. New ids are
-- always the highest, so inserts write the index's rightmost page, as leases' do.
create index change_pending_by_id on change_pending (id);
