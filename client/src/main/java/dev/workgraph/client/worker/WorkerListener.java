package dev.workgraph.client.worker;

import java.time.Duration;

import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.problem.WorkGraphException;

/**
 * What a {@link Worker} went through, for metrics and logs of one's own. Every method has
 * an empty default. Called on runtime threads: return quickly, never block. Exceptions
 * thrown here are logged and otherwise ignored.
 */
public interface WorkerListener {

	/**
	 * An item was claimed (by the claim loop, or with a completion) and is about to be
	 * handed to the handler.
	 */
	default void claimed(LeaseContext lease) {
	}

	/**
	 * A claim failed; the next one is tried after {@code retryIn}. Also a claim made with
	 * a completion ({@code claimNext}) that failed after the completion was committed:
	 * then {@code retryIn} is zero, and the claim loop claims as usual.
	 */
	default void claimFailed(WorkGraphException failure, Duration retryIn) {
	}

	/**
	 * The service does not know {@code waitSeconds} (it predates waiting claims): the
	 * worker polls instead, with back-off while nothing is ready.
	 */
	default void longPollUnsupported() {
	}

	/** A renewal failed without a refusal; it is retried after {@code retryIn}. */
	default void renewalFailed(LeaseContext lease, WorkGraphException failure, Duration retryIn) {
	}

	/**
	 * A write that ends the lease (complete, release, cancel, decompose, a blocking
	 * question) failed without a refusal; it is sent again after {@code retryIn}, within
	 * the time the lease has left.
	 */
	default void writeFailed(LeaseContext lease, WorkGraphException failure, Duration retryIn) {
	}

	/** The lease was lost; the handler has been told and interrupted. */
	default void leaseLost(LeaseContext lease, LeaseLost reason) {
	}

	/** The lease ended by a write of this worker. */
	default void leaseEnded(LeaseContext lease, LeaseOutcome outcome) {
	}

	/** The handler threw; the failure policy decides what happens to the item. */
	default void handlerFailed(LeaseContext lease, Throwable failure) {
	}

}
