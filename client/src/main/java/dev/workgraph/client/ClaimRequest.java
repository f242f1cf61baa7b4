package dev.workgraph.client;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A request for the best ready item:
 * {@code ClaimRequest.forWorker("agent-7").withQueues("writing").withWaitSeconds(30)}.
 *
 * @param workerId the stable identity of the worker; may be null with a worker token (the
 * token's is used)
 * @param queues the queues to take from (all when null)
 * @param leaseSeconds 1–86,400; the service's default (300) when null
 * @param waitSeconds 0–60: how long the service may wait for an item to become ready
 * before answering "nothing"; null sends no wait at all (for services that predate
 * waiting)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClaimRequest(String workerId, List<String> queues, Integer leaseSeconds, Integer waitSeconds) {

	public ClaimRequest {
		queues = (queues != null) ? List.copyOf(queues) : null;
	}

	public static ClaimRequest forWorker(String workerId) {
		return new ClaimRequest(workerId, null, null, null);
	}

	public ClaimRequest withQueues(String... queues) {
		return withQueues(List.of(queues));
	}

	public ClaimRequest withQueues(List<String> queues) {
		return new ClaimRequest(this.workerId, queues, this.leaseSeconds, this.waitSeconds);
	}

	public ClaimRequest withLeaseSeconds(Integer leaseSeconds) {
		return new ClaimRequest(this.workerId, this.queues, leaseSeconds, this.waitSeconds);
	}

	public ClaimRequest withWaitSeconds(Integer waitSeconds) {
		return new ClaimRequest(this.workerId, this.queues, this.leaseSeconds, waitSeconds);
	}

}
