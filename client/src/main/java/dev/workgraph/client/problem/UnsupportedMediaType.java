package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code unsupported_media_type} (415): the body was not sent as JSON. A client bug.
 */
public class UnsupportedMediaType extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public UnsupportedMediaType(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
