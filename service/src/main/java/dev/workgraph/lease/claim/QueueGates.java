package dev.workgraph.lease.claim;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * What a queue's settings (paused, {@code maxActiveLeases}) do to a claim, as SQL the
 * claim statements embed (docs/adr/0021-queue-pause-and-caps.md).
 *
 * <p>
 * Two steps. Every candidate lookup leaves out the queues that are closed: paused, or
 * capped and already at the cap as the statement's snapshot counts it. That keeps claims
 * away from full queues, but a snapshot can be stale by the claims committing beside it,
 * so an item of a capped queue is only granted once {@code queue_headroom} (V28) has
 * locked the queue's settings row and counted its leases again on a fresh snapshot: the
 * claims that grant from one capped queue take turns, and no interleaving exceeds the
 * cap. A queue without settings, or without a cap, never reaches the lock.
 */
@Repository
class QueueGates {

	/**
	 * The gates' inputs as the CTE {@code gates(closed, capped)}, read in one pass over
	 * {@code queue_settings} however many lookups of the statement use them: the names of
	 * the queues no claim may take from now (paused, or capped and at the cap as the
	 * statement's snapshot counts it), and of the capped ones. Materialized, so that it
	 * is computed once per statement. Three sub-selects of the table, one per use, had
	 * cost a claim on queues without settings 8 % of its rate; this costs nothing
	 * measurable (bench/claim-gates-ab.sh). {@code coalesce}: with no settings row the
	 * aggregate is null, and {@code <> all(null)} would pass no item at all.
	 */
	static final String GATES = """
			gates as materialized (
			    select coalesce(array_agg(s.name) filter (where s.paused or (s.max_active_leases is not null
			            and s.max_active_leases <= (select count(*) from leases l where l.queue = s.name))), '{}') as closed,
			        coalesce(array_agg(s.name) filter (where s.max_active_leases is not null), '{}') as capped
			    from queue_settings s
			)""";

	/**
	 * A condition on ready entries {@code r}: not in a closed queue (needs
	 * {@link #GATES}). On {@code r.queue || ''}, not on the column: a generic plan cannot
	 * know the array, and priced with the column's statistics the condition looked as if
	 * it passed no row at all wherever most ready items share one queue (1 - 1/distinct
	 * queues, to the tenth power), so the planner sorted the whole queue instead of
	 * stopping at the first entry of the claim-order index (measured: 4,000 buffers
	 * instead of a dozen at 1,000 ready). An expression has no statistics, so the
	 * condition is priced as passing nearly every row, which it does.
	 */
	static final String OPEN = "r.queue || '' <> all((select g.closed from gates g)::text[])";

	/** A condition on a queue name: the queue is capped (needs {@link #GATES}). */
	static final String CAPPED = "= any((select g.capped from gates g)::text[])";

	/**
	 * A condition on one chosen item of queue {@code p.queue}: its queue has room for one
	 * more lease, locking a capped queue for the rest of the transaction (needs
	 * {@link #GATES}).
	 */
	static final String ADMITS_ONE = """
			case when p.queue %s
			    then (select h.headroom from queue_headroom(array[p.queue]) h) > 0
			    else true end""".formatted(CAPPED);

	/** The room of each capped queue among {@code :queues}, locking them (V28). */
	static final String HEADROOM_OF_CAPPED_QUEUES = """
			select h.queue, h.headroom from queue_headroom(:queues::text[]) h
			""";

	private final JdbcClient jdbc;

	QueueGates(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * How many more leases each capped queue of {@code queues} may grant in the caller's
	 * transaction; a queue without a cap is not in the answer. Locks those queues until
	 * the transaction ends.
	 */
	Map<String, Integer> headroomOfCapped(List<String> queues) {
		Map<String, Integer> headroom = new HashMap<>();
		this.jdbc.sql(HEADROOM_OF_CAPPED_QUEUES)
			.param("queues", SqlArrays.texts(queues))
			.query((rs, n) -> headroom.put(rs.getString("queue"), rs.getInt("headroom")))
			.list();
		return headroom;
	}

}
