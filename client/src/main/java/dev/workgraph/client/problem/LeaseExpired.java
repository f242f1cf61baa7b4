package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code lease_expired} (409): the lease reached its {@code expiresAt} (on the service's
 * clock), whether or not the service has recorded the expiry yet. The item is, or will
 * be, another worker's: stop working on it and do not retry.
 */
public class LeaseExpired extends LeaseRejected {

	private static final long serialVersionUID = 1L;

	public LeaseExpired(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
