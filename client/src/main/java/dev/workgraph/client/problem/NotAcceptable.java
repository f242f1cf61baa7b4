package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code not_acceptable} (406): the {@code Accept} header excluded JSON. A client bug.
 */
public class NotAcceptable extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public NotAcceptable(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
