package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code already_resolved} (409): the attention request was answered before; the first
 * answer stands.
 */
public class AlreadyResolved extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public AlreadyResolved(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
