package dev.workgraph.lease;

/**
 * How a lease ends, in every statement that ends leases: its {@code leases} row is
 * deleted and written, once and with its outcome, to the append-only
 * {@code lease_history}, in the same statement.
 */
public final class LeaseHistory {

	private LeaseHistory() {
	}

	/**
	 * The CTEs {@code ended} (the deleted {@code leases} rows) and {@code recorded}
	 * (their history rows, returned whole).
	 * @param which the {@code using}/{@code where} clauses that pick the leases to end,
	 * with the lease as {@code l}
	 * @param endedAt the end time, an expression over the ended lease {@code e}
	 * @param outcome the outcome (see {@link dev.workgraph.model.LeaseOutcome}), likewise
	 * @param reason the reason, likewise
	 */
	public static String endAndRecord(String which, String endedAt, String outcome, String reason) {
		return endAndRecord(which, endedAt, outcome, reason, "null");
	}

	/** As above, with the error of a failed lease, an expression over {@code e}. */
	public static String endAndRecord(String which, String endedAt, String outcome, String reason, String error) {
		return """
				ended as (
				    delete from leases l %s
				    returning l.*
				), recorded as (
				    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
				        ended_at, outcome, reason, error)
				    select e.id, e.item_id, e.worker_id, e.epoch, e.acquired_at, e.renewed_at, e.expires_at, %s, %s, %s,
				        %s
				    from ended e
				    returning *
				)""".formatted(which, endedAt, outcome, reason, error);
	}

}
