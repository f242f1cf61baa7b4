package dev.workgraph.view;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonRawValue;
import dev.workgraph.model.AttentionStatus;
import dev.workgraph.model.RaisedBy;

/**
 * A question for a human and, once resolved, its answer. Raised by the system (the
 * crash-loop guard), it has no worker.
 */
public record AttentionRequestView(UUID id, UUID itemId, String itemTitle, UUID leaseId, String workerId, long epoch,
		RaisedBy raisedBy, boolean blocking, String question, @JsonRawValue String context, AttentionStatus status,
		Instant openedAt, String resolution, String resolvedBy, Instant resolvedAt) {
}
