-- Lookups of one item's rows estimated as what they nearly always are: a few rows.
--
-- Every claim and completion answer and every item view reads the item's children
-- (work_items.parent_id), its dependencies and dependents (dependencies.item_id and
-- .depends_on_id) and its attention requests (attention_requests.item_id), each by a value
-- that comes from another row of the statement. For such a lookup PostgreSQL cannot use the
-- most common values of the column: it divides the rows by the number of distinct values.
-- One large fan-in or decomposition makes that number tiny (10,000 items depending on one
-- gate: one distinct value), the estimate becomes "every row", and the plan scans the whole
-- table at every completion and view, for the one gate's sake. Measured with a million items
-- of which 50,000 depended on one gate: each completion read all 50,000 dependency rows
-- (2.4 ms more per completion); with 900,000 children of one parent, each item view read
-- every item (176 ms).
--
-- A negative n_distinct is a fraction of the rows: -0.5 says each value has two rows on
-- average, whatever the table's size. The lookup of an ordinary item then uses its index;
-- the lookup of the gate itself reads its rows through the index too, which costs about
-- what the scan would (measured: 26.6 against 25.0 ms for 50,000 dependents). Lookups by a
-- known constant still use the most common values.
alter table dependencies
    alter column item_id set (n_distinct = -0.5),
    alter column depends_on_id set (n_distinct = -0.5);

alter table work_items
    alter column parent_id set (n_distinct = -0.5);

alter table attention_requests
    alter column item_id set (n_distinct = -0.5);

-- The settings count from the next ANALYZE of each column.
analyze dependencies (item_id, depends_on_id);
analyze work_items (parent_id);
analyze attention_requests (item_id);
