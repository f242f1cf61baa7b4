package dev.workgraph.client;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * A lease, active or ended. Its times are the service's (PostgreSQL's) clock: compare
 * them with each other, never with the local clock.
 *
 * @param id the lease id
 * @param itemId the leased item
 * @param workerId who holds (held) it
 * @param epoch the fencing token: the item's epoch when this lease was granted
 * @param acquiredAt when it was granted
 * @param renewedAt when it was last renewed (or granted)
 * @param expiresAt when it dies unless renewed
 * @param active false from {@code expiresAt} on, or once ended
 * @param endedAt when it ended, or null
 * @param outcome how it ended, or null while active
 * @param reason the reason given when it ended, or null
 * @param fenceToken the signed statement of this lease that systems outside Work Graph
 * verify (a compact JWS), or null from a service that does not sign leases
 */
public record Lease(UUID id, UUID itemId, String workerId, long epoch, Instant acquiredAt, Instant renewedAt,
		Instant expiresAt, boolean active, Instant endedAt, LeaseOutcome outcome, String reason,
		String fenceToken) implements LeaseRef {

	/**
	 * The length the service granted on the last claim or renewal, from the service's own
	 * timestamps ({@code expiresAt - renewedAt}); null if it cannot tell.
	 */
	public Duration grantedLength() {
		Instant from = (this.renewedAt != null) ? this.renewedAt : this.acquiredAt;
		if (from == null || this.expiresAt == null) {
			return null;
		}
		return Duration.between(from, this.expiresAt);
	}

	/** Just the id and epoch. */
	public LeaseRef ref() {
		return LeaseRef.of(this.id, this.epoch);
	}

}
