package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.workgraph.client.AttentionRequest;
import dev.workgraph.client.Checkpoint;
import dev.workgraph.client.Decomposed;
import dev.workgraph.client.EndedLease;
import dev.workgraph.client.Item;
import dev.workgraph.client.Lease;
import dev.workgraph.client.NewAttentionRequest;
import dev.workgraph.client.NewChild;
import dev.workgraph.client.WorkGraphClient;

/**
 * A handler's hold on one item: the item, its lease (renewed in the background), whether
 * the lease is still held, and the writes that end it. Every write carries the lease id
 * and epoch. Once the lease is lost, no write is sent any more: the helpers throw
 * {@link LeaseLost} instead.
 *
 * <p>
 * The lease is lost when the service refuses it (an operator cancelled the item, it
 * expired), or when renewals failed for a whole lease length. The handler then learns it
 * three ways: {@link #isLost()} / {@link #ensureHeld()}, the future {@link #whenLost()},
 * and an interrupt of the handler's thread.
 *
 * <p>
 * If the handler ends the lease itself ({@link #complete}, {@link #release},
 * {@link #cancel}, {@link #decompose}, {@link #askHuman(String, Object)}), what it
 * returns is ignored; otherwise its return value completes the item.
 */
public interface LeaseContext {

	/**
	 * The item as it was when claimed (with its children's results and earlier answers).
	 */
	Item item();

	/** The lease as last confirmed by the service (after the latest renewal). */
	Lease lease();

	default UUID leaseId() {
		return lease().id();
	}

	/**
	 * The lease's epoch: a fencing token for one's own systems too (tag writes there with
	 * it and refuse any lower than the highest seen).
	 */
	default long epoch() {
		return lease().epoch();
	}

	/**
	 * The lease's fence token, as of the latest renewal: a signed statement of item,
	 * lease, epoch, worker and expiry (a compact JWS, EdDSA) that systems outside Work
	 * Graph verify offline with the service's published keys
	 * ({@code /.well-known/jwks.json}) before accepting a write, refusing epochs lower
	 * than the highest they have seen; null from a service that does not sign leases.
	 */
	default String fenceToken() {
		return lease().fenceToken();
	}

	/** The worker's identity. */
	String workerId();

	/** The lease is gone; nothing more will be sent for it. */
	boolean isLost();

	/**
	 * Throws {@link LeaseLost} if the lease is gone; call it between steps of long work.
	 */
	void ensureHeld();

	/** Completes (with the reason) when the lease is lost; never if it ends normally. */
	CompletableFuture<LeaseLost> whenLost();

	/**
	 * Runs the callback when the lease is lost (at once if it is already). It runs on a
	 * runtime thread: keep it short and never block in it.
	 */
	default void onLost(Consumer<LeaseLost> callback) {
		whenLost().thenAccept(callback);
	}

	/**
	 * How long the lease surely lives without another successful renewal, by the local
	 * monotonic clock (zero once lost or ended).
	 */
	Duration timeLeft();

	/**
	 * Completes the item with this JSON result (a map, a record, a JSON node, or null).
	 */
	EndedLease complete(Object result);

	/** Completes the item without a result. */
	default EndedLease complete() {
		return complete(null);
	}

	/** Gives the item back to the queue, for another worker (or this one) to claim. */
	EndedLease release(String reason);

	/** Cancels the item and its open descendants. */
	EndedLease cancel(String reason);

	/**
	 * Ends the lease {@code failed} with {@code error} (a JSON object: a map or a
	 * record): the item counts an attempt and runs again, after the service's back-off,
	 * while it has attempts left; with none left, or {@code retryable} false (the failure
	 * would only repeat), it waits for a human.
	 */
	EndedLease fail(Object error, boolean retryable);

	/**
	 * Saves progress ({@code data}, a JSON object: a map or a record) and keeps the
	 * lease: whoever holds the item next, after a crash, an expiry or a release, finds it
	 * in {@link #lastCheckpoint()} and resumes from it instead of starting over.
	 */
	Checkpoint checkpoint(Object data);

	/**
	 * The latest checkpoint: the one the claim handed over (saved by an earlier holder),
	 * then each this handler saved; null when there is none.
	 */
	Checkpoint lastCheckpoint();

	/**
	 * Turns the item into children; it waits until they are all terminal and is then
	 * ready again, showing their results to whoever claims it next.
	 */
	Decomposed decompose(List<NewChild> children, String reason);

	default Decomposed decompose(List<NewChild> children) {
		return decompose(children, null);
	}

	/**
	 * Asks a human and pauses the item: the lease ends, and the item is ready again once
	 * the question is answered (this worker is preferred for it for a while). The answer
	 * is in {@link Item#answers()} of the next claim.
	 */
	default AttentionRequest askHuman(String question, Object context) {
		return askHuman(NewAttentionRequest.blocking(question, context));
	}

	/**
	 * Asks a human; a non-blocking question leaves the lease held and the work going on.
	 */
	AttentionRequest askHuman(NewAttentionRequest request);

	/** The client, for reads (writes for this lease go through the methods above). */
	WorkGraphClient client();

}
