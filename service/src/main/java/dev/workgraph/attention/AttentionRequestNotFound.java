package dev.workgraph.attention;

import java.util.UUID;

import dev.workgraph.support.ProblemCode;
import dev.workgraph.support.RequestRejected;

/** No attention request has this id. */
class AttentionRequestNotFound extends RequestRejected {

	AttentionRequestNotFound(UUID id) {
		super(ProblemCode.NOT_FOUND, "Attention request " + id + " does not exist");
		with("attentionRequestId", id);
	}

}
