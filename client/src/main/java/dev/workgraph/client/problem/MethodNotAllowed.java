package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code method_not_allowed} (405): the path does not take this HTTP method. A client
 * bug, or a client newer than the service.
 */
public class MethodNotAllowed extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public MethodNotAllowed(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
