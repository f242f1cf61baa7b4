package dev.workgraph.item;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

import dev.workgraph.support.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The one place where an item's status follows from its blockers. Every change that can
 * block or unblock items (an edge added or removed, a child created or closed, a
 * dependency completed, an attention request opened or resolved, a lease ended) goes
 * through {@link #adjust}, in the same transaction as the change.
 *
 * <p>
 * The predicate (contract §1): an item that is neither terminal nor leased is
 * {@code ready} exactly when all three counters are zero, else {@code blocked}. A
 * {@code leased} item stays leased (blockers added during a lease count when it ends)
 * unless the caller says it has just ended the item's lease. The status is read from the
 * locked row, i.e. its latest committed version, never from an older snapshot. Moving
 * into {@code ready} stamps a fresh {@code readySince} and enqueues the item in
 * {@code ready_items}; moving out dequeues it.
 *
 * <p>
 * Rows are locked in id order, so concurrent adjustments that share items (two
 * completions with a common dependent or parent) wait for each other instead of
 * deadlocking, and each applies its delta to the latest counter values.
 */
@Repository
public class Readiness {

	static final String ADJUST_BLOCKERS = """
			with delta as (
			    select id, sum(unmet)::int as unmet, sum(children)::int as children, sum(attention)::int as attention
			    from unnest(:ids::uuid[], :unmet::int[], :children::int[], :attention::int[])
			        as d(id, unmet, children, attention)
			    group by id
			), lease_ended as (
			    -- A join, not "id = any(array)": the reaper settles a thousand items at once,
			    -- and testing each against the whole array made this statement quadratic.
			    select distinct id from unnest(:leaseEnded::uuid[]) as e(id)
			), next as materialized (
			    select w.id, w.status as old_status, w.ready_since as old_ready_since,
			        w.unmet_dependencies + d.unmet as unmet,
			        w.open_children + d.children as children,
			        w.open_attention_requests + d.attention as attention,
			        w.status = 'leased' and e.id is null as leased
			    from work_items w
			    join delta d on d.id = w.id
			    left join lease_ended e on e.id = w.id
			    order by w.id
			    for no key update of w
			), settled as (
			    select n.*, case
			        when n.old_status in ('completed', 'cancelled') then n.old_status
			        when n.leased then 'leased'
			        when n.unmet = 0 and n.children = 0 and n.attention = 0 then 'ready'
			        else 'blocked' end as status
			    from next n
			), updated as (
			    update work_items w
			    set unmet_dependencies = s.unmet,
			        open_children = s.children,
			        open_attention_requests = s.attention,
			        status = s.status,
			        ready_since = case when s.status = 'ready' then coalesce(s.old_ready_since, now()) end,
			        updated_at = now()
			    from settled s
			    where w.id = s.id
			    returning w.id, w.queue, w.priority, w.ready_since, s.old_status, s.status
			), entered as (
			    insert into ready_items (item_id, queue, priority, ready_since, preferred_worker_id)
			    select u.id, u.queue, u.priority, u.ready_since,
			        -- Continuity: the worker whose lease ended with a question is preferred for a while.
			        (select case when h.outcome = 'attention_requested' then h.worker_id end
			         from lease_history h where h.item_id = u.id order by h.epoch desc limit 1)
			    from updated u
			    where u.status = 'ready' and u.old_status <> 'ready'
			), departed as (
			    delete from ready_items r
			    using updated u
			    where r.item_id = u.id and u.old_status = 'ready' and u.status <> 'ready'
			)
			select id, old_status, status from updated
			""";

	private final JdbcClient jdbc;

	public Readiness(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Applies the counter changes and settles each touched item's status. An item may
	 * appear several times; its deltas add up.
	 */
	public List<Transition> adjust(Collection<BlockerDelta> deltas) {
		return adjust(deltas, List.of());
	}

	/**
	 * Like {@link #adjust(Collection)}, for a caller that has also just ended the leases
	 * of {@code leaseEnded} (deleted their {@code leases} rows): those items settle to
	 * ready or blocked. They need not appear in {@code deltas}.
	 */
	public List<Transition> adjust(Collection<BlockerDelta> changes, Collection<UUID> leaseEnded) {
		List<BlockerDelta> deltas = new ArrayList<>(changes);
		leaseEnded.forEach((itemId) -> deltas.add(BlockerDelta.none(itemId)));
		if (deltas.isEmpty()) {
			return List.of();
		}
		List<UUID> ids = new ArrayList<>(deltas.size());
		int[] unmet = new int[deltas.size()];
		int[] children = new int[deltas.size()];
		int[] attention = new int[deltas.size()];
		int i = 0;
		for (BlockerDelta delta : deltas) {
			ids.add(delta.itemId());
			unmet[i] = delta.unmetDependencies();
			children[i] = delta.openChildren();
			attention[i] = delta.openAttentionRequests();
			i++;
		}
		return this.jdbc.sql(ADJUST_BLOCKERS)
			.param("ids", SqlArrays.uuids(ids))
			.param("unmet", SqlArrays.ints(unmet))
			.param("children", SqlArrays.ints(children))
			.param("attention", SqlArrays.ints(attention))
			.param("leaseEnded", SqlArrays.uuids(leaseEnded))
			.query((rs, n) -> new Transition(rs.getObject("id", UUID.class), rs.getString("old_status"),
					rs.getString("status")))
			.list();
	}

	public List<Transition> adjust(BlockerDelta... deltas) {
		return adjust(List.of(deltas));
	}

	/** Settles items whose leases the caller has just ended: ready or blocked. */
	public List<Transition> settleAfterLeaseEnded(Collection<UUID> itemIds) {
		return adjust(List.of(), itemIds);
	}

	/** How an item's status changed (or did not) in one adjustment. */
	public record Transition(UUID itemId, String from, String to) {
	}

}
