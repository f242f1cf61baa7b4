package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code unmet_dependencies} (409): the item gained a dependency during the lease that is
 * not completed yet. Release the item; it becomes ready again once the dependency
 * completes.
 */
public class UnmetDependencies extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public UnmetDependencies(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
