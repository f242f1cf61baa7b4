package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code not_found} (404): the item, lease, attention request or token does not exist, or
 * an id given in the body ({@code parentId}, {@code dependsOn}) does not. For a lease
 * operation of a worker this means the lease is gone: stop working on the item.
 */
public class NotFound extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public NotFound(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
