-- The statements of dev.workgraph.change.ChangeOutbox, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: TRY_LOCK
select pg_try_advisory_xact_lock(:key), set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)

-- name: SEQUENCE_COMMITTED
with moved as (
    delete from change_pending
    where id <= (select max(id) from change_pending)
    returning id, type, item_id, lease_id, epoch, queue, at, data
), numbered as (
    select m.*, (select coalesce(max(last_seq), 0) from change_counter)
               + row_number() over (order by m.id) as seq
    from moved m
), inserted as (
    insert into changes (seq, type, item_id, lease_id, epoch, queue, at, data)
    select seq, type, item_id, lease_id, epoch, queue, at, data from numbered
    returning seq
)
-- An upsert, so that a counter row someone removed is put back rather than the
-- moved changes lost.
insert into change_counter (last_seq) select max(seq) from inserted having count(*) > 0
on conflict (only_row) do update set last_seq = excluded.last_seq
returning last_seq

-- name: NOTIFY
select pg_notify('work_graph_changes', :lastSeq::text)

-- name: TRIM
delete from changes where seq in (
    select seq from (select seq, at from changes order by seq limit :batch) oldest
    where at < now() - make_interval(secs => :seconds))
