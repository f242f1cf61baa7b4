package dev.workgraph.lease.claim;

import dev.workgraph.sql.LocalSettings;

/**
 * How a statement that takes many rows at once by key is planned. The queue churns, and
 * its statistics describe it as it was at the last vacuum, often empty: then a sequential
 * scan of it is priced as nearly free, and reads the whole queue for every batch. Ruling
 * the sequential scan out for the transaction leaves the statement the lookups it is
 * written for (see {@link Claims#GRANT_LEASES}).
 * <p>
 * With that settled, the statements' plans do not depend on their arguments, so the
 * transaction also keeps to the connection's cached generic plans: the coalesced claim's
 * statements take arrays, and PostgreSQL planned every execution again otherwise (see
 * {@link dev.workgraph.sql.SqlArrays#opaque}), half a millisecond each.
 */
public final class KeyLookups {

	/**
	 * Run first in the transaction ({@link LocalSettings}). It ends with the transaction,
	 * so the pooled connection is unchanged for everyone else; the statements after it
	 * are always planned with it, so a connection's cached generic plan is one made with
	 * it. No JIT compilation either ({@link dev.workgraph.sql.GenericPlans#NO_JIT}).
	 */
	public static final String ONLY = LocalSettings.query("enable_seqscan", "off", "plan_cache_mode",
			"force_generic_plan", "jit", "off");

	private KeyLookups() {
	}

}
