package dev.workgraph.lease.expiry;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.workgraph.lease.LeaseHistory;
import dev.workgraph.model.Rows;
import dev.workgraph.sql.LocalSettings;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Records expiries. Several reapers (one per service instance) may run at once: each
 * takes the expired leases and their items with {@code SKIP LOCKED}, so every expiry is
 * recorded exactly once and a reaper never waits on a lease that a worker is completing
 * right now (if the worker's request started before expiresAt it wins; otherwise its
 * guard fails and the next pass records the expiry).
 */
@Repository
public class ExpiredLeases {

	/**
	 * One batch of expiries. The leases it ends are found by primary key from an array
	 * ({@code = any(array(...))}), never by joining a CTE to the table: the statistics of
	 * {@code leases} usually describe a nearly empty table (it holds only active leases,
	 * and is analyzed between bursts), and with one estimated row the planner joined the
	 * batch to the table by a nested loop that compared every lease of the batch with
	 * every lease left, 10,000 × 1,000 comparisons for the first batch of a burst (3 s
	 * instead of 0.1 s). An index probe per id does not depend on the estimate.
	 */
	public static final String REAP_EXPIRED = """
			with expired as (
			    select l.id, w.consecutive_expirations + 1 as consecutive_expirations, w.attempts + 1 as attempts,
			        w.retry::text as retry
			    from leases l
			    join work_items w on w.id = l.item_id
			    where l.expires_at <= now()
			    order by l.expires_at
			    limit :batchSize
			    for update of l, w skip locked
			), %s
			-- The count as it will be: Readiness writes it with the item's new status
			-- (one row version per item, not two).
			select h.lease_id, h.item_id, h.epoch, x.consecutive_expirations, x.attempts, x.retry
			from recorded h
			join expired x on x.id = h.lease_id
			""".formatted(LeaseHistory.endAndRecord("where l.id = any(array(select x.id from expired x))",
			// An expired lease ended at its expiry, whenever the reaper gets round to it.
			"e.expires_at", "'expired'", "null"));

	/**
	 * Plans the rest of the reaper's transaction for the tables as they are. Pooled
	 * connections keep a generic plan of a prepared statement, and the reaper's was
	 * nearly always made while {@code leases} was (almost) empty: a plan that joins the
	 * CTEs by nested loops over sequential scans and, for a burst of expiries, compares
	 * every lease of a batch with every lease left (quadratic; 10,000 expiries took 1.3 s
	 * or 40 s depending on the connection). Planning each batch costs about a
	 * millisecond. It ends with the transaction ({@link LocalSettings}), so the pooled
	 * connection is unchanged for everyone else. Batches of a thousand are priced high
	 * enough for JIT compilation, which costs more than it saves here
	 * ({@link dev.workgraph.sql.GenericPlans#NO_JIT}).
	 */
	public static final String PLAN_FOR_THE_TABLES_AS_THEY_ARE = LocalSettings.query("plan_cache_mode",
			"force_custom_plan", "jit", "off");

	/**
	 * Milliseconds from now until the earliest active lease expires, both by PostgreSQL's
	 * clock (so the service's clock does not matter); null when no lease is active. The
	 * minimum of {@code leases_expires_at_idx}: one index probe.
	 */
	static final String UNTIL_NEXT_EXPIRY = """
			select ceil(extract(epoch from min(expires_at) - clock_timestamp()) * 1000)::bigint from leases
			""";

	private final JdbcClient jdbc;

	ExpiredLeases(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	Optional<Duration> untilNextExpiry() {
		return this.jdbc.sql(UNTIL_NEXT_EXPIRY).query(Long.class).optional().map(Duration::ofMillis);
	}

	/**
	 * Records up to {@code batchSize} expiries and answers each item's consecutive
	 * expirations counting this one; the caller settles the items with
	 * {@code Readiness.adjustAfterExpiry}, which writes that count. Run it in a
	 * transaction: every statement after it in that transaction is planned afresh too.
	 */
	List<ExpiredLease> reapExpired(int batchSize) {
		this.jdbc.sql(PLAN_FOR_THE_TABLES_AS_THEY_ARE).query().singleRow();
		return this.jdbc.sql(REAP_EXPIRED)
			.param("batchSize", batchSize)
			.query((rs, n) -> new ExpiredLease(Rows.uuid(rs, "lease_id"), Rows.uuid(rs, "item_id"), rs.getLong("epoch"),
					rs.getInt("consecutive_expirations"), rs.getInt("attempts"), rs.getString("retry")))
			.list();
	}

}
