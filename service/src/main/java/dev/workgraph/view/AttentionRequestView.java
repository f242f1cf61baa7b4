package dev.workgraph.view;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonRawValue;

/**
 * A question for a human and, once resolved, its answer. {@code raisedBy} is
 * {@code worker} or {@code system} (the crash-loop guard, which has no worker).
 */
public record AttentionRequestView(UUID id, UUID itemId, String itemTitle, UUID leaseId, String workerId, long epoch,
		String raisedBy, boolean blocking, String question, @JsonRawValue String context, String status,
		Instant openedAt, String resolution, String resolvedBy, Instant resolvedAt) {
}
