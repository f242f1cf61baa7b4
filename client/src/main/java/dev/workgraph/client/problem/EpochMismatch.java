package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code epoch_mismatch} (409): the lease is alive but the write carried another epoch. A
 * client bug: always send the epoch of one's own claim.
 */
public class EpochMismatch extends LeaseRejected {

	private static final long serialVersionUID = 1L;

	public EpochMismatch(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
