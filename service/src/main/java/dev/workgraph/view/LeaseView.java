package dev.workgraph.view;

import java.time.Instant;
import java.util.UUID;

import dev.workgraph.model.LeaseOutcome;

/**
 * A lease, active or ended, as every endpoint shows it. {@code active} is false from
 * {@code expiresAt} on, even before the reaper has recorded the expiry; {@code endedAt},
 * {@code outcome} and {@code reason} appear once it ended. Read through
 * {@link LeaseRows}.
 */
public record LeaseView(UUID id, UUID itemId, String workerId, long epoch, Instant acquiredAt, Instant renewedAt,
		Instant expiresAt, boolean active, Instant endedAt, LeaseOutcome outcome, String reason) {
}
