package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * 429: the service (or a proxy in front of it) asks the caller to slow down; wait for
 * {@link #retryAfter()} before trying again.
 */
public class RateLimited extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public RateLimited(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

	@Override
	public boolean isTransient() {
		return true;
	}

}
