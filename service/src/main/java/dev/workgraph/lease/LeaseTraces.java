package dev.workgraph.lease;

import dev.workgraph.tracing.LeaseSpans;
import dev.workgraph.view.LeaseView;

import org.springframework.stereotype.Component;

/**
 * The claim and lease endpoints name the leases they answer with in the request's trace
 * (docs/operations.md, "Tracing"): item, lease, epoch and worker.
 */
@Component
public class LeaseTraces {

	/** The child span of each lease a batch claim granted. */
	public static final String BATCH_GRANT = "workgraph.claim.batch.grant";

	/** The child span of the lease claimed in a completion's transaction. */
	public static final String NEXT_CLAIM = "workgraph.claim.next";

	/** The child span of the lease a handoff granted to the next worker. */
	public static final String HANDOFF_GRANT = "workgraph.handoff.grant";

	/** The child span of each lease a batch completion completed. */
	public static final String BATCH_COMPLETION = "workgraph.completion";

	private final LeaseSpans spans;

	LeaseTraces(LeaseSpans spans) {
		this.spans = spans;
	}

	/** The request's own span names the lease it acted on. */
	public void acting(LeaseView lease) {
		this.spans.acting(lease.itemId(), lease.id(), lease.epoch(), lease.workerId());
	}

	/** A child span named {@code what} for one of several leases the request acted on. */
	public void granted(String what, LeaseView lease) {
		this.spans.granted(what, lease.itemId(), lease.id(), lease.epoch(), lease.workerId());
	}

}
