package dev.workgraph.lease.claim;

/**
 * How the claim statements ({@link Claims}) find ready entries {@code r} of
 * {@code ready_items}: free ones in claim order, overall or in each requested queue, as
 * SQL they embed. Every lookup leaves out closed queues ({@link QueueGates#OPEN}, which
 * needs the statement's {@link QueueGates#GATES}).
 */
final class ReadyEntries {

	/** Ready in time for the continuity preference to hold. */
	static final String PREFERENCE_OPEN = "r.ready_since > now() - make_interval(secs => :continuitySeconds)";

	static final String IN_QUEUES = "r.queue = any(:queues::text[])";

	/** Claim order: highest priority, then longest ready, then id. */
	private static final String CLAIM_ORDER = "r.priority desc, r.ready_since, r.item_id";

	/**
	 * A ready entry {@code r} of queue {@code q.name} (see {@link #inEachQueue}), written
	 * as a range. As {@code r.queue = q.name} it was priced by the column's statistics,
	 * the name being one the generic plan cannot see: where one queue holds nearly every
	 * ready item they know one queue, the equality looked as if it passed every row, and
	 * the lookup of any other queue walked the claim-order index through that queue's
	 * whole backlog (300 ms a claim at 340,000 ready; QueueFilterPlanTests). A range is
	 * priced as selective, and unlike an equality it does not make the queue a constant,
	 * so an order by queue first is served only by the index that keeps each queue's
	 * entries together ({@code ready_items_queue_claim_order_idx}). The same rows: under
	 * a deterministic collation, as the column's is, text sorts equal only when
	 * identical.
	 */
	private static final String OF_QUEUE_Q = "r.queue >= q.name and r.queue <= q.name";

	private ReadyEntries() {
	}

	/**
	 * Ready items in claim order (highest priority, then longest ready, then id) that no
	 * concurrent claim holds, each locked with its item row: {@code SKIP LOCKED} passes
	 * over the rows another claim has locked instead of waiting for it.
	 */
	static String freeReadyItems(String columns, String condition, String limit) {
		return freeReadyItems(columns, condition, CLAIM_ORDER, limit);
	}

	/**
	 * {@link #freeReadyItems} of each queue of {@code :queues}, the queue's best first.
	 */
	static String freeReadyItemsOfEachQueue(String columns, String limit) {
		return inEachQueue(freeReadyItems(columns, OF_QUEUE_Q, "r.queue, " + CLAIM_ORDER, limit));
	}

	/**
	 * One ready entry, locked or not, of each queue of {@code :queues} that has one: a
	 * plain read that waits for nobody.
	 */
	static String anyOfEachQueue() {
		return inEachQueue(
				"select 1 from ready_items r where %s and %s limit 1".formatted(OF_QUEUE_Q, QueueGates.OPEN));
	}

	private static String freeReadyItems(String columns, String condition, String order, String limit) {
		return """
				select r.item_id, r.ctid as ready_row, r.priority, r.ready_since, r.queue, %s
				    from ready_items r
				    join work_items w on w.id = r.item_id
				    where %s and %s
				    order by %s
				    limit %s
				    for update of r, w skip locked""".formatted(columns, condition, QueueGates.OPEN, order, limit);
	}

	/**
	 * The probe once per queue of {@code :queues}: ordered index probes, where one ANY()
	 * over several queues cannot use the index order.
	 */
	private static String inEachQueue(String probe) {
		return """
				select best_of_queue.* from unnest(:queues::text[]) as q(name)
				    cross join lateral (
				        %s
				    ) best_of_queue""".formatted(probe);
	}

}
