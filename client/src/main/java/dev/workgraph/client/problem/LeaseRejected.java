package dev.workgraph.client.problem;

import java.time.Duration;
import java.util.UUID;

import tools.jackson.databind.JsonNode;

/**
 * Fencing refused a lease write (409) and wrote nothing: the lease is dead
 * ({@link LeaseExpired}), over ({@link LeaseEnded}), or the request carried another epoch
 * ({@link EpochMismatch}). A worker must stop working on the item. Never retry with
 * {@link #currentEpoch()}: that epoch belongs to a lease the caller does not hold.
 */
public abstract class LeaseRejected extends RequestRejected {

	private static final long serialVersionUID = 1L;

	protected LeaseRejected(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

	/** The lease the write presented; null if the service did not say. */
	public UUID leaseId() {
		JsonNode leaseId = problem().property("leaseId");
		return leaseId.isString() ? UUID.fromString(leaseId.asString()) : null;
	}

	/** The epoch the write presented, or -1 if the service did not say. */
	public long presentedEpoch() {
		return problem().property("presentedEpoch").asLong(-1);
	}

	/** The item's epoch now (a later lease's, if the item was claimed again), or -1. */
	public long currentEpoch() {
		return problem().property("currentEpoch").asLong(-1);
	}

}
