package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code internal_error} (500): a bug in the service; it logged the details. Retrying may
 * help if the cause was passing.
 */
public class InternalServerError extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public InternalServerError(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

	@Override
	public boolean isTransient() {
		return true;
	}

}
