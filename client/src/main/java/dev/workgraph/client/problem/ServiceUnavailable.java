package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code service_unavailable} (503, also a proxy's 502 or 504): PostgreSQL is unreachable
 * or restarting, or the service is overloaded. Nothing was done that the caller can rely
 * on; send the same request again after {@link #retryAfter()} (for a lease write: the
 * same lease id and epoch).
 */
public class ServiceUnavailable extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public ServiceUnavailable(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

	@Override
	public boolean isTransient() {
		return true;
	}

}
