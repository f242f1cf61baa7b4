package dev.workgraph.sql;

import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs a hot query whose best plan does not depend on its arguments with the connection's
 * cached generic plan. PostgreSQL plans each of the first five executions of a prepared
 * statement for its arguments, then keeps a generic plan only while that looks no dearer
 * than the average of those: for statements such as the item view and the lone claim the
 * two are priced within a few percent of each other, the statistics of the churning queue
 * tables move that much between vacuums, and under load most executions were planned
 * again, at 0.5 to 1.5 ms of server CPU each, more than running them (docs/adr/0014).
 *
 * <p>
 * The setting goes ahead of the query in the same round trip ({@link OneRoundTrip}): the
 * two are one implicit transaction, at whose end the setting lapses, so the pooled
 * connection is left as it was (behind PgBouncer in transaction mode too). Inside a
 * caller's transaction the query runs as that transaction plans it: a setting there would
 * outlive the query.
 */
@Repository
public class GenericPlans {

	/**
	 * No JIT compilation for the rest of the transaction. PostgreSQL compiles a statement
	 * whose estimated cost passes {@code jit_above_cost} (100,000 by default), and the
	 * estimates of the hot statements grow with the tables: they are priced for ten rows
	 * of their arrays, and each row's view parts for thousands of children while the
	 * statistics are stale. With a million items the batch claim's grant crossed the
	 * line: compiling it took about 100 ms of CPU at every execution, running it 8 ms,
	 * and the batch mode fell from 11,000 to 4,500 items/s (docs/performance-journal.md).
	 * No hot statement runs long enough for compiled code to repay its compilation.
	 */
	public static final String NO_JIT = LocalSettings.query("jit", "off");

	/** The generic plan and {@link #NO_JIT}: a {@link LocalSettings#query}. */
	public static final String FORCE = LocalSettings.query("plan_cache_mode", "force_generic_plan", "jit", "off");

	private final Transactions transactions;

	private final JdbcClient jdbc;

	private final OneRoundTrip oneRoundTrip;

	public GenericPlans(Transactions transactions, JdbcClient jdbc, OneRoundTrip oneRoundTrip) {
		this.transactions = transactions;
		this.jdbc = jdbc;
		this.oneRoundTrip = oneRoundTrip;
	}

	/** The rows of {@code sql} with {@code params}, as {@code rows} maps them. */
	public <T> List<T> query(String sql, Map<String, ?> params, RowMapper<T> rows) {
		if (TransactionSynchronizationManager.isActualTransactionActive()) {
			return this.jdbc.sql(sql).params(params).query(rows).list();
		}
		return this.transactions.retryingLockRaces(() -> this.oneRoundTrip.queryAfter(FORCE, sql, rows, params));
	}

}
