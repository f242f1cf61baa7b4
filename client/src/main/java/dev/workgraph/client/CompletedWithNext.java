package dev.workgraph.client;

import java.util.Optional;

import dev.workgraph.client.problem.Problem;
import dev.workgraph.client.problem.RequestRejected;

/**
 * The answer to a completion with {@code claimNext}: the ended lease and the completed
 * item, as {@link EndedLease} has them, and the next claim made for the same worker once
 * the completion was committed.
 *
 * @param lease the completed lease
 * @param item the completed item
 * @param next the next item under a new lease; empty when nothing was ready in those
 * queues, or when the claim failed ({@code nextProblem})
 * @param nextProblem why the claim failed after the completion was committed (the
 * completion stands), or null
 */
public record CompletedWithNext(Lease lease, Item item, Optional<Claim> next, Problem nextProblem) {

	public CompletedWithNext {
		next = (next != null) ? next : Optional.empty();
	}

	/** The completion part, as {@link WorkGraphClient#complete} answers it. */
	public EndedLease ended() {
		return new EndedLease(this.lease, this.item);
	}

	/**
	 * The exception {@link WorkGraphClient#claim} would have thrown for
	 * {@link #nextProblem()} (say,
	 * {@link dev.workgraph.client.problem.ServiceUnavailable} with
	 * {@code isTransient()}); null when there is none.
	 */
	public RequestRejected nextFailure() {
		return (this.nextProblem != null) ? RequestRejected.of(this.nextProblem, null) : null;
	}

}
