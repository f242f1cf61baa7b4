package dev.workgraph.client.worker;

import java.util.Optional;

import dev.workgraph.client.CompletedWithNext;
import dev.workgraph.client.EndedLease;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.NewAttentionRequest;
import dev.workgraph.client.NextClaim;
import dev.workgraph.client.problem.RequestRejected;
import dev.workgraph.client.problem.ValidationFailed;
import dev.workgraph.client.problem.WorkGraphException;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Runs a worker's handler on a lease and settles the lease afterwards: the handler's
 * return value completes the item (asking for the handler slot's next item as
 * {@link NextClaims} says), and a failure is handed to the {@link FailurePolicy}, whose
 * decision is carried out here.
 */
final class HandlerRunner {

	private final ItemHandler handler;

	private final FailurePolicy policy;

	private final NextClaims nextClaims;

	HandlerRunner(ItemHandler handler, FailurePolicy policy, NextClaims nextClaims) {
		this.handler = handler;
		this.policy = policy;
		this.nextClaims = nextClaims;
	}

	/**
	 * Runs the handler on the calling thread and settles the lease.
	 * @return the next item claimed with the completion, for this slot to work on; null
	 * if none
	 */
	TimedClaim run(ActiveLease lease) {
		lease.handlerStarted();
		try {
			Object result;
			try {
				result = this.handler.handle(lease);
			}
			catch (LeaseLost ex) {
				return null;
			}
			catch (Exception | AssertionError | LinkageError failure) {
				failed(lease, failure);
				return null;
			}
			if (lease.holds()) {
				try {
					return completeWithResult(lease, result);
				}
				catch (LeaseLost ex) {
					// told already
				}
				catch (RequestRejected rejected) {
					failed(lease, rejected);
				}
				catch (WorkGraphException ex) {
					Settings.LOG.log(WARNING, "{0}: could not complete: {1}", lease, ex.getMessage());
				}
			}
			else if (result != null) {
				Settings.LOG.log(DEBUG, "{0}: the handler's result was not sent: the lease is no longer held", lease);
			}
			return null;
		}
		finally {
			lease.handlerDone();
		}
	}

	/**
	 * Completes with the handler's result, settled like
	 * {@link LeaseContext#complete(Object)}; each attempt asks for the slot's next item
	 * if {@code nextClaims} says so at that moment (never once the worker is stopping). A
	 * refusal of {@code claimNext} itself (a service that predates it) is followed by the
	 * plain completion at once.
	 */
	private TimedClaim completeWithResult(ActiveLease lease, Object result) {
		Settings settings = lease.settings();
		Completed completed = lease.writes().end("complete", LeaseOutcome.COMPLETED, (transport) -> {
			NextClaim next = this.nextClaims.nextClaim();
			if (next != null) {
				long sentAt = settings.now();
				try {
					CompletedWithNext answer = transport.completeAndClaimNext(lease.ref(), result, next);
					return new Completed(answer, true, sentAt, settings.now());
				}
				catch (ValidationFailed refused) {
					if (!this.nextClaims.refusedClaimNext(refused)) {
						throw refused;
					}
				}
			}
			return new Completed(withoutNext(transport.complete(lease.ref(), result)), false, 0, 0);
		}, (ended) -> new Completed(withoutNext(lease.writes().endedLease(ended)), false, 0, 0));
		if (!completed.askedNext()) {
			return null;
		}
		this.nextClaims.answered(completed.answer());
		return completed.answer()
			.next()
			.map((claim) -> new TimedClaim(claim, completed.sentAt(), completed.receivedAt()))
			.orElse(null);
	}

	private static CompletedWithNext withoutNext(EndedLease ended) {
		return new CompletedWithNext(ended.lease(), ended.item(), Optional.empty(), null);
	}

	private void failed(ActiveLease lease, Throwable failure) {
		if (!lease.holds()) {
			Settings.LOG.log(DEBUG, "{0}: the handler failed after the lease was lost: {1}", lease, failure.toString());
			return;
		}
		Settings.LOG.log(WARNING, () -> lease + ": the handler failed", failure);
		Settings settings = lease.settings();
		settings.tell(() -> settings.listener().handlerFailed(lease, failure));
		HandlerFailure handlerFailure = new HandlerFailure(lease, failure);
		FailureAction action;
		try {
			action = this.policy.decide(handlerFailure);
		}
		catch (RuntimeException ex) {
			Settings.LOG.log(WARNING, () -> lease + ": the failure policy threw; releasing the item", ex);
			action = FailureAction.release(handlerFailure.summary());
		}
		try {
			if (action instanceof FailureAction.Fail fail) {
				lease.fail(fail.error(), fail.retryable());
			}
			else if (action instanceof FailureAction.AskHuman ask) {
				lease.askHuman(NewAttentionRequest.blocking(ask.question(), ask.context()));
			}
			else if (action instanceof FailureAction.Cancel cancel) {
				lease.cancel(cancel.reason());
			}
			else if (action instanceof FailureAction.Release release) {
				lease.release(release.reason());
			}
		}
		catch (LeaseLost ex) {
			// told already
		}
		catch (WorkGraphException | IllegalStateException ex) {
			Settings.LOG.log(WARNING, "{0}: could not act on the handler's failure: {1}", lease, ex.getMessage());
		}
	}

	/** The completion that counted, whether it asked for the next item, and its times. */
	private record Completed(CompletedWithNext answer, boolean askedNext, long sentAt, long receivedAt) {
	}

}
