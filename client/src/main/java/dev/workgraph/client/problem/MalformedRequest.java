package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code malformed_request} (400): the body is not JSON, not UTF-8, more than one value,
 * or nests deeper than 100 levels. A bug in the caller: fix the request.
 */
public class MalformedRequest extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public MalformedRequest(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
