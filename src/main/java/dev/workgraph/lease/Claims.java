package dev.workgraph.lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.support.SqlArrays;
import dev.workgraph.view.ItemViews.ItemRow;
import dev.workgraph.view.LeaseView;
import dev.workgraph.view.Rows;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The claim: one statement that picks the best ready item, dequeues it, marks it leased
 * with the next epoch and grants the lease. {@code FOR UPDATE SKIP LOCKED} on the queue
 * row and the item row lets concurrent claims (from any number of service instances) pass
 * each other instead of queueing behind one candidate, and never hand out the same item
 * twice. Both candidate lookups are index scans on {@code ready_items}, which holds only
 * ready items, so the cost does not grow with the item count.
 *
 * <p>
 * Continuity (ADR 002, decided in docs/adr/0004): besides the best ready item overall,
 * the claim looks up the best ready item for which this worker is the preferred one (its
 * lease ended with a question, and the item became ready within the continuity window).
 * The preferred item wins unless the overall best has a higher priority; the preference
 * never reserves anything.
 */
@Repository
class Claims {

	private static final String CLAIM_TEMPLATE = """
			with preferred as materialized (
			    select r.item_id, r.priority, r.ready_since, true as is_preferred
			    from ready_items r
			    join work_items w on w.id = r.item_id
			    where r.preferred_worker_id = :workerId
			        and r.ready_since > now() - make_interval(secs => :continuitySeconds)
			        %s
			    order by r.priority desc, r.ready_since, r.item_id
			    limit 1
			    for update of r, w skip locked
			), best as materialized (
			    %s
			), picked as (
			    select item_id from (select * from preferred union all select * from best) candidate
			    order by priority desc, is_preferred desc, ready_since, item_id
			    limit 1
			), dequeued as (
			    delete from ready_items r using picked p where r.item_id = p.item_id
			    returning r.item_id
			), claimed as (
			    update work_items w
			    set status = 'leased', epoch = w.epoch + 1, ready_since = null, updated_at = now()
			    from dequeued d
			    where w.id = d.item_id
			    returning w.*
			), granted as (
			    -- Acquired when granted, not when the transaction began: now() can precede the
			    -- snapshot that saw the previous lease end, and history would show an overlap.
			    insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at)
			    select :leaseId, c.id, :workerId, c.epoch, t.granted_at,
			        t.granted_at + make_interval(secs => :leaseSeconds)
			    from claimed c cross join (select clock_timestamp() as granted_at) t
			    returning *
			)
			select c.*, g.id as lease_id, g.worker_id, g.acquired_at, g.expires_at
			from claimed c
			join granted g on g.item_id = c.id
			""";

	private static final String BEST_IN_ANY_QUEUE = """
			select r.item_id, r.priority, r.ready_since, false as is_preferred
			    from ready_items r
			    join work_items w on w.id = r.item_id
			    order by r.priority desc, r.ready_since, r.item_id
			    limit 1
			    for update of r, w skip locked
			""";

	/**
	 * One ordered index probe per queue (an ANY() over several queues cannot use the
	 * index order).
	 */
	private static final String BEST_IN_QUEUES = """
			select best_of_queue.* from unnest(:queues::text[]) as q(name)
			    cross join lateral (
			        select r.item_id, r.priority, r.ready_since, false as is_preferred
			        from ready_items r
			        join work_items w on w.id = r.item_id
			        where r.queue = q.name
			        order by r.priority desc, r.ready_since, r.item_id
			        limit 1
			        for update of r, w skip locked
			    ) best_of_queue
			""";

	static final String CLAIM_NEXT_READY = CLAIM_TEMPLATE.formatted("", BEST_IN_ANY_QUEUE);

	static final String CLAIM_NEXT_READY_IN_QUEUES = CLAIM_TEMPLATE.formatted("and r.queue = any(:queues::text[])",
			BEST_IN_QUEUES);

	/**
	 * Whether any item is ready (in the given queues), locked or not: a plain read that
	 * waits for nobody.
	 */
	static final String ANY_READY = """
			select exists (select 1 from ready_items)
			""";

	static final String ANY_READY_IN_QUEUES = """
			select exists (select 1 from ready_items where queue = any(:queues::text[]))
			""";

	private final JdbcClient jdbc;

	Claims(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Claims the best ready item, or nothing when no ready item is free (in the given
	 * queues).
	 */
	Optional<Claimed> claimNextReady(UUID leaseId, String workerId, List<String> queues, int leaseSeconds,
			Duration continuityWindow) {
		JdbcClient.StatementSpec claim = this.jdbc.sql((queues == null) ? CLAIM_NEXT_READY : CLAIM_NEXT_READY_IN_QUEUES)
			.param("leaseId", leaseId)
			.param("workerId", workerId)
			.param("leaseSeconds", leaseSeconds)
			.param("continuitySeconds", continuityWindow.toMillis() / 1000.0);
		if (queues != null) {
			claim = claim.param("queues", SqlArrays.texts(queues));
		}
		return claim.query((rs, n) -> {
			ItemRow item = ItemRow.map(rs, n);
			LeaseView lease = new LeaseView(Rows.uuid(rs, "lease_id"), item.id(), rs.getString("worker_id"),
					item.epoch(), Rows.instant(rs, "acquired_at"), null, Rows.instant(rs, "expires_at"), true, null,
					null, null);
			return new Claimed(lease, item);
		}).optional();
	}

	boolean anyReady(List<String> queues) {
		if (queues == null) {
			return this.jdbc.sql(ANY_READY).query(Boolean.class).single();
		}
		return this.jdbc.sql(ANY_READY_IN_QUEUES)
			.param("queues", SqlArrays.texts(queues))
			.query(Boolean.class)
			.single();
	}

	record Claimed(LeaseView lease, ItemRow item) {
	}

}
