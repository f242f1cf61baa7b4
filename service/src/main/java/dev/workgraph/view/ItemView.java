package dev.workgraph.view;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.workgraph.model.Blockers;
import dev.workgraph.model.ItemStatus;
import dev.workgraph.model.RetryPolicy;
import io.swagger.v3.oas.annotations.media.Schema;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * An item as every endpoint shows it: its fields, why it is blocked, what it depends on,
 * its children with their results, its active lease and all its attention requests with
 * their answers, and its latest checkpoint (null when none was written), which a claim's
 * answer thus hands to the next holder; {@code attempts} (failed or expired leases since
 * it was created or a human last let it run again) and its {@code retry} policy; its
 * durable {@code waits}, with the payload of the event that matched each, which a claim's
 * answer thus hands to the next holder. {@code createdBy} and {@code cancelledBy} name
 * the token that made the change; they are null when access control was off, and
 * {@code cancelledBy} is null for an item that is not cancelled.
 */
public record ItemView(UUID id, String title, String description, int priority, String queue,
		@JsonSerialize(using = JsonbText.class) String metadata, UUID parentId,
		@JsonSerialize(using = JsonbText.class) String result, long epoch, ItemStatus status, Instant createdAt,
		Instant updatedAt, Instant readySince, Instant closedAt, String cancelReason, String createdBy,
		String cancelledBy, Blockers blockers, List<DependencyView> dependsOn, List<ChildView> children,
		LeaseView lease, List<AttentionRequestView> attentionRequests, CheckpointView checkpoint, int attempts,
		@Schema(implementation = RetryPolicy.class) @JsonSerialize(using = JsonbText.class) String retry,
		List<WaitView> waits) {
}
