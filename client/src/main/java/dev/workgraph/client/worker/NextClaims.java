package dev.workgraph.client.worker;

import dev.workgraph.client.CompletedWithNext;
import dev.workgraph.client.NextClaim;
import dev.workgraph.client.problem.ValidationFailed;

/**
 * What the completion with a handler's result sends as {@code claimNext}, and who hears
 * how that went: the worker's claim loop.
 */
interface NextClaims {

	/** The {@code claimNext} to send with a completion now; null for none. */
	NextClaim nextClaim();

	/**
	 * Whether a refusal of a completion with {@code claimNext} is about {@code claimNext}
	 * itself; then the completion is sent again without it.
	 */
	boolean refusedClaimNext(ValidationFailed refusal);

	/** A completion with {@code claimNext} was answered (its next claim is handled). */
	void answered(CompletedWithNext answer);

}
