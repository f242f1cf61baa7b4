package dev.workgraph.tracing;

import java.util.UUID;

/**
 * Names the leases a request acts on in its trace, so that one item's trip through
 * worker, service and database can be found by its item, lease or epoch. Chosen once at
 * start ({@link TracingConfiguration}): with tracing off it is {@link #NONE} and the hot
 * path does no tracing work at all.
 */
public interface LeaseSpans {

	/** The span attribute naming the item. */
	String ITEM = "workgraph.item.id";

	/** The span attribute naming the lease. */
	String LEASE = "workgraph.lease.id";

	/** The span attribute holding the lease's epoch (its fencing token). */
	String EPOCH = "workgraph.lease.epoch";

	/** The span attribute naming the worker holding the lease. */
	String WORKER = "workgraph.worker.id";

	/** Tracing is off: nothing is tagged. */
	LeaseSpans NONE = new LeaseSpans() {

		@Override
		public void acting(UUID itemId, UUID leaseId, long epoch, String workerId) {
		}

		@Override
		public void granted(String what, UUID itemId, UUID leaseId, long epoch, String workerId) {
		}

	};

	/**
	 * The request's own span (the HTTP server span) names the one lease it claimed,
	 * renewed, completed or ended.
	 */
	void acting(UUID itemId, UUID leaseId, long epoch, String workerId);

	/**
	 * One of several leases a request granted (a batch claim, the claim chained to a
	 * completion): a child span of the request's span each, named {@code what}.
	 */
	void granted(String what, UUID itemId, UUID leaseId, long epoch, String workerId);

}
