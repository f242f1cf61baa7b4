package dev.workgraph.client;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.NullNode;

/**
 * A work item as the service shows it: its fields, why it is blocked, what it depends on,
 * its children (with their results), its active lease and every attention request with
 * its answer.
 *
 * @param id the item id
 * @param title what to do
 * @param description more about it, or null
 * @param priority higher is claimed first
 * @param queue the queue it is in
 * @param metadata a JSON object (empty when none was given)
 * @param parentId the item it was decomposed from, or null
 * @param result the JSON result it was completed with (a null node until then)
 * @param epoch how many times it was claimed
 * @param status where it is in its life
 * @param createdAt when it was created
 * @param updatedAt when it last changed
 * @param readySince since when it is ready, or null
 * @param closedAt when it became terminal, or null
 * @param cancelReason why it was cancelled, or null
 * @param blockers why it is not ready
 * @param dependsOn the items it depends on, each with its status
 * @param children its direct children, each with its status and result
 * @param lease its active lease, or null
 * @param attentionRequests every attention request on it, with answers
 * @param createdBy the name of the token that created it, when the service records it
 * @param cancelledBy the name of the token that cancelled it, when the service records it
 * @param checkpoint the latest checkpoint written under any of its leases, or null
 * @param attempts its leases that failed or expired since it was created or a human last
 * let it run again
 * @param retry its retry policy: how many attempts it gets and how long it waits between
 * them (the service counts and applies it)
 */
public record Item(UUID id, String title, String description, int priority, String queue, JsonNode metadata,
		UUID parentId, JsonNode result, long epoch, ItemStatus status, Instant createdAt, Instant updatedAt,
		Instant readySince, Instant closedAt, String cancelReason, Blockers blockers, List<Dependency> dependsOn,
		List<Child> children, Lease lease, List<AttentionRequest> attentionRequests, String createdBy,
		String cancelledBy, Checkpoint checkpoint, int attempts, RetryPolicy retry) {

	public Item {
		metadata = (metadata != null && !metadata.isNull()) ? metadata : JsonNodeFactory.instance.objectNode();
		result = (result != null) ? result : NullNode.getInstance();
		blockers = (blockers != null) ? blockers : new Blockers(0, 0, 0, null);
		dependsOn = (dependsOn != null) ? List.copyOf(dependsOn) : List.of();
		children = (children != null) ? List.copyOf(children) : List.of();
		attentionRequests = (attentionRequests != null) ? List.copyOf(attentionRequests) : List.of();
	}

	/** The metadata converted to a type of the caller's (a record, a map). */
	public <T> T metadataAs(Class<T> type) {
		return Json.MAPPER.treeToValue(this.metadata, type);
	}

	/** The result converted to a type of the caller's; null if there is none. */
	public <T> T resultAs(Class<T> type) {
		return this.result.isNull() ? null : Json.MAPPER.treeToValue(this.result, type);
	}

	/** The answered attention requests, oldest first: what humans told the workers. */
	public List<AttentionRequest> answers() {
		return this.attentionRequests.stream().filter(AttentionRequest::isResolved).toList();
	}

	/**
	 * Why the item is not ready: three counters and a time; it can be ready only when all
	 * counters are zero and {@code notBefore} is null.
	 *
	 * @param unmetDependencies dependencies not completed
	 * @param openChildren direct children not terminal
	 * @param openAttentionRequests open blocking attention requests
	 * @param notBefore the instant before which it may not be claimed (scheduled,
	 * released with a delay, or backing off after a failure), or null
	 */
	public record Blockers(int unmetDependencies, int openChildren, int openAttentionRequests, Instant notBefore) {
	}

	/**
	 * An item's retry policy: after a failed or expired attempt with attempts left it
	 * waits {@code min(maxBackoffSeconds, backoffSeconds × 2^(attempts−1))} (less up to
	 * 20 % jitter); when {@code maxAttempts} are used up a human is asked.
	 *
	 * @param maxAttempts failed or expired leases before a human is asked
	 * @param backoffSeconds the wait after the first failed attempt
	 * @param maxBackoffSeconds the longest wait
	 */
	public record RetryPolicy(int maxAttempts, long backoffSeconds, long maxBackoffSeconds) {
	}

	/**
	 * Attempts left before the service holds the item for a human, counting the one under
	 * way: {@code retry.maxAttempts - attempts} (at least 0); {@code Integer.MAX_VALUE}
	 * when the service sent no policy.
	 */
	public int attemptsLeft() {
		return (this.retry != null) ? Math.max(0, this.retry.maxAttempts() - this.attempts) : Integer.MAX_VALUE;
	}

	/**
	 * An item this one depends on; a cancelled one keeps this item blocked until the edge
	 * is removed.
	 */
	public record Dependency(UUID id, String title, ItemStatus status) {
	}

	/** A direct child, with its result once completed. */
	public record Child(UUID id, String title, ItemStatus status, JsonNode result) {

		public Child {
			result = (result != null) ? result : NullNode.getInstance();
		}

	}

}
