package dev.workgraph.webhook;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/** A webhook id that names no webhook (never created, or deleted). */
class WebhookNotFound extends RequestRejected {

	WebhookNotFound(UUID id) {
		super(ProblemCode.NOT_FOUND, "No webhook with id " + id);
		with("webhookId", id);
	}

}
