package dev.workgraph.view;

import java.time.Instant;
import java.util.UUID;

import dev.workgraph.model.LeaseOutcome;
import tools.jackson.databind.annotation.JsonAppend;

/**
 * A lease, active or ended, as every endpoint shows it. {@code active} is false from
 * {@code expiresAt} on, even before the reaper has recorded the expiry; {@code endedAt},
 * {@code outcome} and {@code reason} appear once it ended. Written with its
 * {@code fenceToken} ({@link FenceTokenProperty}). Read through {@link LeaseRows}.
 */
@JsonAppend(props = @JsonAppend.Prop(value = FenceTokenProperty.class, name = "fenceToken", type = String.class))
public record LeaseView(UUID id, UUID itemId, String workerId, long epoch, Instant acquiredAt, Instant renewedAt,
		Instant expiresAt, boolean active, Instant endedAt, LeaseOutcome outcome, String reason) {
}
