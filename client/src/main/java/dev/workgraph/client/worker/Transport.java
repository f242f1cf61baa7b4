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

/**
 * How a worker's claims, renewals and lease writes reach the service, chosen once when
 * the worker is built. {@link HttpTransport} sends each as a request of its own (claims
 * as long polls); {@link StreamTransport} (the default) carries them over one WebSocket
 * per worker, and falls back to HTTP where that is not available. Reads (the item, the
 * lease history) go through the worker's {@link dev.workgraph.client.WorkGraphClient}.
 *
 * <p>
 * Failures are {@link dev.workgraph.client.problem.WorkGraphException}s, as the client
 * throws them: the runtime decides what is retried, what ends a lease and what stops the
 * worker.
 */
interface Transport {

	/**
	 * This transport with every request answered or failed within {@code timeout}; itself
	 * when its own limit is no longer than that. Writes for a lease never outlast it.
	 */
	Transport within(Duration timeout);

	/**
	 * The best ready item under a new lease, or empty (after waiting, if the request says
	 * so). Cancelling the future calls a waiting claim off.
	 */
	CompletableFuture<Optional<Claim>> claim(ClaimRequest request);

	CompletableFuture<Lease> renew(LeaseRef lease, Integer leaseSeconds);

	EndedLease complete(LeaseRef lease, Object result);

	CompletedWithNext completeAndClaimNext(LeaseRef lease, Object result, NextClaim next);

	EndedLease release(LeaseRef lease, String reason);

	EndedLease cancel(LeaseRef lease, String reason);

	Decomposed decompose(LeaseRef lease, List<NewChild> children, String reason);

	AttentionRequest requestAttention(LeaseRef lease, NewAttentionRequest request);

	SavedCheckpoint checkpoint(LeaseRef lease, Object data);

	EndedLease fail(LeaseRef lease, Object error, boolean retryable);

	/** The worker stopped: whatever the transport holds open is closed. */
	default void close() {
	}

}
