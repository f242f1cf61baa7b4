package dev.workgraph.client;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A request for up to {@code limit} ready items at once, each under its own lease and
 * epoch, ranked exactly as if claimed one after the other.
 *
 * @param workerId the stable identity of the worker (may be null with a worker token)
 * @param queues the queues to take from (all when null)
 * @param leaseSeconds 1–86,400; the service's default when null
 * @param limit 1–500
 * @param waitSeconds 0–60, or null for no wait
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BatchClaimRequest(String workerId, List<String> queues, Integer leaseSeconds, int limit,
		Integer waitSeconds) {

	public BatchClaimRequest {
		queues = (queues != null) ? List.copyOf(queues) : null;
	}

	public static BatchClaimRequest forWorker(String workerId, int limit) {
		return new BatchClaimRequest(workerId, null, null, limit, null);
	}

	public BatchClaimRequest withQueues(String... queues) {
		return new BatchClaimRequest(this.workerId, List.of(queues), this.leaseSeconds, this.limit, this.waitSeconds);
	}

	public BatchClaimRequest withLeaseSeconds(Integer leaseSeconds) {
		return new BatchClaimRequest(this.workerId, this.queues, leaseSeconds, this.limit, this.waitSeconds);
	}

	public BatchClaimRequest withWaitSeconds(Integer waitSeconds) {
		return new BatchClaimRequest(this.workerId, this.queues, this.leaseSeconds, this.limit, waitSeconds);
	}

}
