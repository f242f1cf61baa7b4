package dev.workgraph.view;

import java.time.Instant;
import java.util.UUID;

import dev.workgraph.model.AttentionStatus;
import dev.workgraph.model.RaisedBy;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * A question for a human and, once resolved, its answer. Raised by the system (the
 * crash-loop guard, attempts used up), it has no worker and says which {@code kind} it
 * is: {@code crash_loop}, {@code retries_exhausted} or {@code no_progress} (null for a
 * worker's). A question with a deadline has {@code timeoutAt} and {@code onTimeout}; once
 * escalated, {@code escalatedAt} and the label it was escalated to, {@code escalateTo}.
 */
public record AttentionRequestView(UUID id, UUID itemId, String itemTitle, UUID leaseId, String workerId, long epoch,
		RaisedBy raisedBy, String kind, boolean blocking, String question,
		@JsonSerialize(using = JsonbText.class) String context, AttentionStatus status, Instant openedAt,
		String resolution, String resolvedBy, Instant resolvedAt, Instant timeoutAt, Deadline onTimeout,
		Instant escalatedAt, String escalateTo) {

	/**
	 * What the question's deadline ({@code timeoutAt}) does: {@code escalate} (to the
	 * label {@code escalateTo}), {@code default} (answered with {@code resolution}) or
	 * {@code cancel}.
	 */
	public record Deadline(String action, String resolution, String escalateTo) {
	}

}
