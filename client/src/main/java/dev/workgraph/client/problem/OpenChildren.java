package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code open_children} (409): the item cannot be completed while some of its children
 * are not terminal. Wait for them, or release the item.
 */
public class OpenChildren extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public OpenChildren(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
