package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import dev.workgraph.client.AttentionQuery;
import dev.workgraph.client.AttentionRequest;
import dev.workgraph.client.AttentionRequestPage;
import dev.workgraph.client.Decomposed;
import dev.workgraph.client.EndedLease;
import dev.workgraph.client.Item;
import dev.workgraph.client.ItemQuery;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.problem.Forbidden;
import dev.workgraph.client.problem.LeaseRejected;
import dev.workgraph.client.problem.NotFound;
import dev.workgraph.client.problem.RateLimited;
import dev.workgraph.client.problem.RequestInterrupted;
import dev.workgraph.client.problem.RequestRejected;
import dev.workgraph.client.problem.ServiceUnreachable;
import dev.workgraph.client.problem.Unauthenticated;
import dev.workgraph.client.problem.WorkGraphException;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Sends the writes for one lease, through the worker's transport, and settles them: a
 * transient failure is retried within the lease's time, a refusal about the lease loses
 * it, and a write whose answer was lost is looked up rather than guessed. The lease's
 * state machine ({@link ActiveLease}) says which writes may be sent.
 */
final class LeaseWrites {

	/** How long to keep asking the service how a lease ended after an ambiguous write. */
	private static final Duration OUTCOME_CHECK_WINDOW = Duration.ofSeconds(30);

	private final ActiveLease lease;

	private final Settings settings;

	LeaseWrites(ActiveLease lease, Settings settings) {
		this.lease = lease;
		this.settings = settings;
	}

	/**
	 * Sends a write that ends the lease: renewals stop while it is in flight; transient
	 * failures are retried within the lease's time; when an earlier attempt may have
	 * landed and a retry is refused, the service is asked how the lease ended, so that a
	 * write of our own whose answer was lost counts as done. The wait is not
	 * interruptible: an abandoned write would leave the outcome unknown.
	 * @param recover the write's answer, rebuilt from the ended lease when its own was
	 * lost
	 */
	<T> T end(String what, LeaseOutcome outcome, Function<Transport, T> write, Function<Lease, T> recover) {
		this.lease.beginEnding(what);
		boolean interrupted = false;
		boolean ambiguous = false;
		WorkGraphException lastFailure = null;
		try {
			for (int attempt = 1;; attempt++) {
				long remaining = this.lease.remaining();
				if (remaining <= 0) {
					break;
				}
				try {
					T value = write.apply(this.settings.transportWithin(remaining));
					this.lease.ended(outcome);
					return value;
				}
				catch (LeaseRejected | NotFound refusal) {
					T ours = ambiguous ? ifOurs(outcome, recover) : null;
					if (ours != null) {
						this.lease.ended(outcome);
						return ours;
					}
					throw refused(what, refusal);
				}
				catch (Unauthenticated | Forbidden refusal) {
					throw this.lease.tokenRefused(refusal);
				}
				catch (RequestInterrupted ex) {
					// Someone interrupted this thread mid-request: the write may have
					// gone out.
					interrupted = true;
					Thread.interrupted();
					ambiguous = true;
					lastFailure = ex;
				}
				catch (WorkGraphException failure) {
					if (!failure.isTransient()) {
						this.lease.resume();
						throw failure;
					}
					lastFailure = failure;
					ambiguous |= mayHaveBeenProcessed(failure);
					Duration retryIn = this.settings.retryDelay(attempt, failure);
					Settings.LOG.log(DEBUG, "{0}: could not {1} ({2}); retrying in {3} ms", this.lease, what,
							failure.getMessage(), retryIn.toMillis());
					this.settings.tell(() -> this.settings.listener().writeFailed(this.lease, failure, retryIn));
					interrupted |= pause(retryIn, this.lease.remaining());
				}
			}
			T ours = ambiguous ? ifOurs(outcome, recover) : null;
			if (ours != null) {
				this.lease.ended(outcome);
				return ours;
			}
			throw this.lease.lose(LeaseLost.Reason.RENEWALS_FAILED, "Could not " + what + " before the lease ran out"
					+ ((lastFailure != null) ? ": " + lastFailure.getMessage() : ""), lastFailure);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * A write that leaves the lease held (a non-blocking question). Retried only when it
	 * certainly was not processed, so that a lost answer never asks the question twice.
	 */
	<T> T whileHeld(String what, Function<Transport, T> write) {
		for (int attempt = 1;; attempt++) {
			this.lease.requireHeld(what);
			try {
				return write.apply(this.settings.transportWithin(this.lease.remaining()));
			}
			catch (LeaseRejected | NotFound refusal) {
				throw refused(what, refusal);
			}
			catch (Unauthenticated | Forbidden refusal) {
				throw this.lease.tokenRefused(refusal);
			}
			catch (WorkGraphException failure) {
				if (!failure.isTransient() || mayHaveBeenProcessed(failure) || this.lease.remaining() <= 0) {
					throw failure;
				}
				if (pause(this.settings.retryDelay(attempt, failure), this.lease.remaining())) {
					Thread.currentThread().interrupt();
					throw failure;
				}
			}
		}
	}

	/**
	 * Releases a lease the runtime took from its handler (the worker is stopping),
	 * retrying transient failures within the lease's time.
	 */
	void releaseTakenLease(String reason) {
		long remaining = this.lease.remaining();
		for (int attempt = 1; remaining > 0; attempt++) {
			try {
				this.settings.transportWithin(remaining).release(this.lease.ref(), reason);
				return;
			}
			catch (LeaseRejected | NotFound ex) {
				return;
			}
			catch (WorkGraphException failure) {
				if (!failure.isTransient()
						|| pause(this.settings.retryDelay(attempt, failure), this.lease.remaining())) {
					return;
				}
				remaining = this.lease.remaining();
			}
		}
	}

	private LeaseLost refused(String what, RequestRejected refusal) {
		return this.lease.lose(LeaseLost.Reason.REFUSED, "The service refused to " + what + ": " + refusal.getMessage(),
				refusal);
	}

	/**
	 * After an ambiguous write was refused: did the lease end the way the write would
	 * have ended it? Reads only.
	 */
	private <T> T ifOurs(LeaseOutcome outcome, Function<Lease, T> recover) {
		Lease ours = this.lease.lease();
		long deadline = this.settings.now() + OUTCOME_CHECK_WINDOW.toNanos();
		for (int attempt = 1;; attempt++) {
			try {
				Lease current = this.settings.client().getLease(ours.id());
				if (current.outcome() != outcome || current.epoch() != ours.epoch()) {
					return null;
				}
				Settings.LOG.log(INFO,
						"{0}: an earlier attempt to end the lease landed ({1}) although its answer was lost",
						this.lease, outcome);
				return recover.apply(current);
			}
			catch (NotFound ex) {
				return null;
			}
			catch (WorkGraphException failure) {
				long left = deadline - this.settings.now();
				if (!failure.isTransient() || left <= 0) {
					Settings.LOG.log(WARNING, "{0}: could not learn whether an earlier write ended the lease: {1}",
							this.lease, failure.getMessage());
					return null;
				}
				if (pause(this.settings.retryDelay(attempt, failure), left)) {
					Thread.currentThread().interrupt();
				}
			}
		}
	}

	// The answers of ending writes, rebuilt from reads when their own was lost

	EndedLease endedLease(Lease ended) {
		return new EndedLease(ended, readItem());
	}

	Decomposed decomposed(Lease ended) {
		List<Item> children;
		try {
			children = this.settings.client()
				.items(ItemQuery.all().withParent(this.lease.item().id()).withLimit(500))
				.toList();
		}
		catch (WorkGraphException ex) {
			children = List.of();
		}
		return new Decomposed(ended, readItem(), children);
	}

	AttentionRequest raisedQuestion(Lease ended) {
		String cursor = null;
		do {
			AttentionRequestPage page = this.settings.client()
				.listAttentionRequests(
						AttentionQuery.all().withItem(this.lease.item().id()).withLimit(100).withCursor(cursor));
			for (AttentionRequest request : page.attentionRequests()) {
				if (ended.id().equals(request.leaseId()) && request.blocking()) {
					return request;
				}
			}
			cursor = page.nextCursor();
		}
		while (cursor != null);
		return null;
	}

	private Item readItem() {
		try {
			return this.settings.client().getItem(this.lease.item().id());
		}
		catch (WorkGraphException ex) {
			return this.lease.item();
		}
	}

	/**
	 * Whether a failed write may have been carried out: a 429 was not; a connection that
	 * never opened was not; anything else (a timeout, a reset, a 503 or 500, which may
	 * come after a commit) may have been.
	 */
	private static boolean mayHaveBeenProcessed(WorkGraphException failure) {
		if (failure instanceof RateLimited) {
			return false;
		}
		if (failure instanceof ServiceUnreachable unreachable) {
			return unreachable.requestMayHaveBeenProcessed();
		}
		return true;
	}

	/**
	 * Sleeps without giving in to interrupts, at most {@code limitNanos}; tells whether
	 * the thread was interrupted meanwhile (the caller restores the flag).
	 */
	private static boolean pause(Duration delay, long limitNanos) {
		long until = System.nanoTime() + Math.max(0, Math.min(delay.toNanos(), limitNanos));
		boolean interrupted = false;
		for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
			LockSupport.parkNanos(left);
			interrupted |= Thread.interrupted();
		}
		return interrupted;
	}

}
