package dev.workgraph.client;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code claimNext} of a completion: the claim the service makes for the same worker once
 * the completion is committed, so that a worker going from item to item saves a round
 * trip per item: {@code NextClaim.fromAnyQueue().withQueues("writing")}. It never waits
 * and names no worker (the one that held the completed lease claims); its fields follow
 * the rules of {@link ClaimRequest}.
 *
 * @param queues the queues to take from, 1–100 names (all when null)
 * @param leaseSeconds 1 to the service's maximum; the service's default (300) when null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NextClaim(List<String> queues, Integer leaseSeconds) {

	public NextClaim {
		queues = (queues != null) ? List.copyOf(queues) : null;
	}

	/**
	 * The best ready item of any queue, under a lease of the service's default length.
	 */
	public static NextClaim fromAnyQueue() {
		return new NextClaim(null, null);
	}

	/** The queues and lease length of this claim request (its worker and wait aside). */
	public static NextClaim like(ClaimRequest request) {
		return new NextClaim(request.queues(), request.leaseSeconds());
	}

	public NextClaim withQueues(String... queues) {
		return withQueues(List.of(queues));
	}

	public NextClaim withQueues(List<String> queues) {
		return new NextClaim(queues, this.leaseSeconds);
	}

	public NextClaim withLeaseSeconds(Integer leaseSeconds) {
		return new NextClaim(this.queues, leaseSeconds);
	}

}
