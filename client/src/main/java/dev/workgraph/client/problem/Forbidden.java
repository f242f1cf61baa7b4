package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code forbidden} (403): the token is valid but its role may not do this: an operator
 * claiming, a worker touching another worker's lease or claiming under another
 * {@code workerId}, a non-admin managing tokens.
 */
public class Forbidden extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public Forbidden(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
