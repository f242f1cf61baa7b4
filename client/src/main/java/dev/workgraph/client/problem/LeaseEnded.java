package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code lease_ended} (409): the lease ended some other way: completed, released,
 * cancelled (perhaps by an operator), decomposed, or paused by a blocking attention
 * request. Stop working on the item. If the write that ended it may have been the
 * caller's own whose answer was lost, {@code GET /leases/{id}} tells (the worker runtime
 * does this by itself).
 */
public class LeaseEnded extends LeaseRejected {

	private static final long serialVersionUID = 1L;

	public LeaseEnded(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
