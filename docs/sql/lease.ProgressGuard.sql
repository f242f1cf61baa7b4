-- The statements of dev.workgraph.lease.ProgressGuard, exactly as they run.
-- Rendered by StatementsRenderedTests: change the Java, not this file.

-- name: ITEMS_WITHOUT_PROGRESS
with recent as (
    select i.id as item_id, h.lease_id, h.worker_id, h.epoch, h.outcome
    from unnest(:ids::uuid[]) as i(id)
    join work_items w on w.id = i.id
    cross join lateral (
        select h.lease_id, h.worker_id, h.epoch, h.outcome
        from lease_history h
        where h.item_id = i.id and h.epoch > w.progress_counted_after
        order by h.epoch desc
        limit :threshold
    ) h
), streaks as (
    select item_id, min(epoch) as first_epoch, max(epoch) as last_epoch, count(*) as leases,
        bool_and(outcome in ('released', 'failed', 'expired')) as none_progressed,
        json_agg(json_build_object('leaseId', lease_id, 'workerId', worker_id, 'epoch', epoch,
            'outcome', outcome) order by epoch) as named
    from recent
    group by item_id
)
select s.item_id, s.last_epoch, (select h.lease_id from lease_history h
        where h.item_id = s.item_id and h.epoch = s.last_epoch) as last_lease_id,
    s.named::text as leases
from streaks s
where s.leases = :threshold and s.none_progressed
    and coalesce((select k.epoch from checkpoints k where k.item_id = s.item_id
        order by k.seq desc limit 1), 0) < s.first_epoch
    and not exists (select 1 from attention_requests a
        where a.item_id = s.item_id and a.raised_by = 'worker' and a.epoch >= s.first_epoch)
