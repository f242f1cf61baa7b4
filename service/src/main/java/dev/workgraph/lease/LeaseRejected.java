package dev.workgraph.lease;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/**
 * A lease mutation was refused by fencing and wrote nothing. The problem carries the
 * lease, the epoch the caller presented and the item's current epoch. A worker receiving
 * it must stop working on the item: the item is no longer its to change.
 */
class LeaseRejected extends RequestRejected {

	LeaseRejected(Reason reason, UUID leaseId, long presentedEpoch, long currentEpoch) {
		super(codeOf(reason), detailOf(reason, leaseId, presentedEpoch, currentEpoch));
		with("leaseId", leaseId).with("presentedEpoch", presentedEpoch).with("currentEpoch", currentEpoch);
	}

	private static ProblemCode codeOf(Reason reason) {
		return switch (reason) {
			case EXPIRED -> ProblemCode.LEASE_EXPIRED;
			case ENDED -> ProblemCode.LEASE_ENDED;
			case EPOCH_MISMATCH -> ProblemCode.EPOCH_MISMATCH;
		};
	}

	private static String detailOf(Reason reason, UUID leaseId, long presentedEpoch, long currentEpoch) {
		return switch (reason) {
			case EXPIRED -> "Lease " + leaseId + " expired; the item may have been claimed again (its epoch is now "
					+ currentEpoch + "). Stop working on it.";
			case ENDED -> "Lease " + leaseId + " has already ended; the item's epoch is now " + currentEpoch
					+ ". Stop working on it.";
			case EPOCH_MISMATCH -> "Epoch " + presentedEpoch + " does not match lease " + leaseId
					+ "; the item's epoch is " + currentEpoch + ".";
		};
	}

	/**
	 * Why fencing refused, in the order they are checked (docs/http-api.md, "Which
	 * stale-lease code").
	 */
	enum Reason {

		/**
		 * The lease died at its expiresAt, whether or not the reaper has recorded it yet.
		 */
		EXPIRED,
		/**
		 * The lease ended some other way: completed, released, cancelled, decomposed,
		 * asked for attention.
		 */
		ENDED,
		/** The lease is alive but the request presented another epoch. */
		EPOCH_MISMATCH

	}

}
