package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code unauthenticated} (401): the request carried no bearer token, or one the service
 * does not know or has revoked. Configure a valid token.
 */
public class Unauthenticated extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public Unauthenticated(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
