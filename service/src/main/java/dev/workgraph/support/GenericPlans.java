package dev.workgraph.support;

import java.util.function.Supplier;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs a hot statement whose best plan does not depend on its arguments with the
 * connection's cached generic plan. PostgreSQL plans each of the first five executions of
 * a prepared statement for its arguments, then keeps a generic plan only while that looks
 * no dearer than the average of those: for statements such as the item view and the lone
 * claim the two are priced within a few percent of each other, the statistics of the
 * churning queue tables move that much between vacuums, and under load most executions
 * were planned again, at 0.5 to 1.5 ms of server CPU each, more than running them.
 * {@code SET LOCAL} needs a transaction: the work gets one of its own (one round trip
 * more, far cheaper than the planning), or joins the caller's unchanged (docs/adr/0014).
 */
@Repository
public class GenericPlans {

	/** The setting, for a transaction that runs it first. */
	public static final String FORCE = "set local plan_cache_mode = force_generic_plan";

	private final Transactions transactions;

	private final JdbcClient jdbc;

	public GenericPlans(Transactions transactions, JdbcClient jdbc) {
		this.transactions = transactions;
		this.jdbc = jdbc;
	}

	public <T> T run(Supplier<T> work) {
		if (TransactionSynchronizationManager.isActualTransactionActive()) {
			// Left as the caller's transaction plans it: a SET LOCAL here would outlive
			// this statement.
			return work.get();
		}
		return this.transactions.inTransaction(() -> {
			this.jdbc.sql(FORCE).update();
			return work.get();
		});
	}

}
