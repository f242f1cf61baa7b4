package dev.workgraph.attention;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/** The attention request was resolved before; its answer stands. */
class AlreadyResolved extends RequestRejected {

	AlreadyResolved(UUID id, String resolvedBy) {
		super(ProblemCode.ALREADY_RESOLVED, "Attention request " + id + " was already resolved by " + resolvedBy);
		with("attentionRequestId", id);
	}

}
