package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code idempotency_conflict} (409): the {@code Idempotency-Key} was used before with a
 * different body. Use a new key for a different item.
 */
public class IdempotencyConflict extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public IdempotencyConflict(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
