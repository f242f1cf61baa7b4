package dev.workgraph.attention;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/** No attention request has this id. */
class AttentionRequestNotFound extends RequestRejected {

	AttentionRequestNotFound(UUID id) {
		super(ProblemCode.NOT_FOUND, "Attention request " + id + " does not exist");
		with("attentionRequestId", id);
	}

}
