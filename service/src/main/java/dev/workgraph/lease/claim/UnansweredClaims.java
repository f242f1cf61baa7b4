package dev.workgraph.lease.claim;

import java.util.UUID;

import dev.workgraph.lease.LeaseAndItem;

/**
 * What becomes of a claim whose client was gone before its answer: its lease is released
 * at once, so the item is ready again for the next waiter. Ending leases is not the
 * claim's business; the lease endings provide it.
 */
public interface UnansweredClaims {

	/** Releases the lease as a worker's release would, fenced on its epoch. */
	LeaseAndItem release(UUID leaseId, long epoch, String reason);

}
