package dev.workgraph.sql;

import java.util.UUID;

import org.slf4j.MDC;

/**
 * What every log line written while serving a request carries (docs/operations.md,
 * "Logs"): the request's id and, once known, the lease and item it acts on. Kept in the
 * MDC of the thread serving the request, which the web filter clears when the answer is
 * sent; plain text logs leave it out, structured (JSON) logs add it to each line.
 */
public final class LogContext {

	/** The MDC key of the request id ({@code X-Request-Id}). */
	public static final String REQUEST_ID = "requestId";

	/** The MDC key of the lease the request acts on. */
	public static final String LEASE_ID = "leaseId";

	/** The MDC key of the item the request acts on. */
	public static final String ITEM_ID = "itemId";

	private LogContext() {
	}

	public static void lease(UUID leaseId) {
		if (leaseId != null) {
			MDC.put(LEASE_ID, leaseId.toString());
		}
	}

	public static void item(UUID itemId) {
		if (itemId != null) {
			MDC.put(ITEM_ID, itemId.toString());
		}
	}

	/** Forgets the request's context: the thread serves another request next. */
	public static void clear() {
		MDC.remove(REQUEST_ID);
		MDC.remove(LEASE_ID);
		MDC.remove(ITEM_ID);
	}

}
