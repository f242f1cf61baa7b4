package dev.workgraph.item;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/** An Idempotency-Key was reused with a request body that differs from the first one. */
class IdempotencyConflict extends RequestRejected {

	IdempotencyConflict(String key, UUID itemId) {
		super(ProblemCode.IDEMPOTENCY_CONFLICT, "Idempotency-Key '" + key
				+ "' was first used with a different request (it created item " + itemId + ")");
		with("itemId", itemId);
	}

}
