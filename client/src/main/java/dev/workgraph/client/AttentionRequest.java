package dev.workgraph.client;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * A question for a human and, once resolved, the answer.
 *
 * @param id the request id
 * @param itemId the item it is about
 * @param itemTitle that item's title
 * @param leaseId the lease under which it was raised
 * @param workerId the worker that asked; null when the service raised it
 * @param epoch the epoch of that lease
 * @param raisedBy {@code worker}, or {@code system} for the service's crash-loop guard
 * @param blocking whether the item waits for the answer
 * @param question the question
 * @param context a JSON object the asker attached (empty when none)
 * @param status open or resolved
 * @param openedAt when it was asked
 * @param resolution the answer, or null
 * @param resolvedBy who answered, or null
 * @param resolvedAt when, or null
 */
public record AttentionRequest(UUID id, UUID itemId, String itemTitle, UUID leaseId, String workerId, long epoch,
		String raisedBy, boolean blocking, String question, JsonNode context, Status status, Instant openedAt,
		String resolution, String resolvedBy, Instant resolvedAt) {

	public AttentionRequest {
		context = (context != null && !context.isNull()) ? context : JsonNodeFactory.instance.objectNode();
	}

	@JsonIgnore
	public boolean isResolved() {
		return this.status == Status.RESOLVED;
	}

	/** Open until a human answers. */
	public enum Status {

		@JsonProperty("open")
		OPEN, @JsonProperty("resolved")
		RESOLVED,
		/** A status that a newer service knows and this client does not. */
		@JsonEnumDefaultValue
		UNKNOWN

	}

}
