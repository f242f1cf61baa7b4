package dev.workgraph.client.worker;

import java.util.UUID;

import dev.workgraph.client.problem.WorkGraphException;

/**
 * The handler no longer holds its lease, so the runtime sends nothing more for it: every
 * helper of the {@link LeaseContext} throws this, locally, without a request. Stop
 * working on the item and discard what was meant for it; another worker may hold it by
 * now, under a higher epoch.
 */
public class LeaseLost extends WorkGraphException {

	private static final long serialVersionUID = 1L;

	private final UUID leaseId;

	private final Reason reason;

	public LeaseLost(UUID leaseId, Reason reason, String message, Throwable cause) {
		super(message, cause);
		this.leaseId = leaseId;
		this.reason = reason;
	}

	/** A copy thrown in the caller's thread, with the same reason and cause. */
	LeaseLost rethrown() {
		return new LeaseLost(this.leaseId, this.reason, getMessage(), getCause());
	}

	public UUID leaseId() {
		return this.leaseId;
	}

	public Reason reason() {
		return this.reason;
	}

	/** Why the lease is gone. */
	public enum Reason {

		/**
		 * The service refused a write or renewal as {@code lease_expired},
		 * {@code lease_ended}, {@code epoch_mismatch} or {@code not_found} (the cause):
		 * an operator cancelled the item, the lease expired, or someone else holds the
		 * item now. Or it refused the worker's token ({@code unauthenticated},
		 * {@code forbidden}): the worker stops with {@link TokenRefused}.
		 */
		REFUSED,
		/**
		 * No renewal succeeded for a whole lease length (the service was down or
		 * unreachable), so the lease must be assumed expired.
		 */
		RENEWALS_FAILED,
		/**
		 * The worker is stopping and its grace period is over: the runtime released the
		 * lease itself.
		 */
		WORKER_STOPPED,
		/**
		 * The handler returned without ending the lease and the runtime could not end it
		 * either; it was left to expire.
		 */
		ABANDONED

	}

}
