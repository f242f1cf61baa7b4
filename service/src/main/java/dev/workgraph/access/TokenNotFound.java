package dev.workgraph.access;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/** {@code DELETE /tokens/{id}} of a token that does not exist. */
class TokenNotFound extends RequestRejected {

	TokenNotFound(UUID id) {
		super(ProblemCode.NOT_FOUND, "No token with id " + id);
		with("tokenId", id);
	}

}
