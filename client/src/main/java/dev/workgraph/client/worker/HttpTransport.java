package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.workgraph.client.AttentionRequest;
import dev.workgraph.client.Claim;
import dev.workgraph.client.ClaimRequest;
import dev.workgraph.client.CompletedWithNext;
import dev.workgraph.client.Decomposed;
import dev.workgraph.client.EndedLease;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseRef;
import dev.workgraph.client.NewAttentionRequest;
import dev.workgraph.client.NewChild;
import dev.workgraph.client.NextClaim;
import dev.workgraph.client.SavedCheckpoint;
import dev.workgraph.client.WorkGraphClient;

/**
 * The transport over the API's HTTP endpoints: a long-poll {@code POST /claims}, and a
 * request per renewal and per write, through the worker's client.
 */
record HttpTransport(WorkGraphClient client) implements Transport {

	@Override
	public Transport within(Duration timeout) {
		return (timeout.compareTo(this.client.requestTimeout()) < 0)
				? new HttpTransport(this.client.withRequestTimeout(timeout)) : this;
	}

	@Override
	public CompletableFuture<Optional<Claim>> claim(ClaimRequest request) {
		return this.client.claimAsync(request);
	}

	@Override
	public CompletableFuture<Lease> renew(LeaseRef lease, Integer leaseSeconds) {
		return this.client.renewAsync(lease, leaseSeconds);
	}

	@Override
	public EndedLease complete(LeaseRef lease, Object result) {
		return this.client.complete(lease, result);
	}

	@Override
	public CompletedWithNext completeAndClaimNext(LeaseRef lease, Object result, NextClaim next) {
		return this.client.completeAndClaimNext(lease, result, next);
	}

	@Override
	public EndedLease release(LeaseRef lease, String reason) {
		return this.client.release(lease, reason);
	}

	@Override
	public EndedLease cancel(LeaseRef lease, String reason) {
		return this.client.cancel(lease, reason);
	}

	@Override
	public Decomposed decompose(LeaseRef lease, List<NewChild> children, String reason) {
		return this.client.decompose(lease, children, reason);
	}

	@Override
	public AttentionRequest requestAttention(LeaseRef lease, NewAttentionRequest request) {
		return this.client.requestAttention(lease, request);
	}

	@Override
	public SavedCheckpoint checkpoint(LeaseRef lease, Object data) {
		return this.client.checkpoint(lease, data, null);
	}

	@Override
	public EndedLease fail(LeaseRef lease, Object error, boolean retryable) {
		return this.client.fail(lease, error, retryable, null);
	}

}
