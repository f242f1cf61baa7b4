package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.workgraph.client.Claim;
import dev.workgraph.client.ClaimRequest;
import dev.workgraph.client.CompletedWithNext;
import dev.workgraph.client.NextClaim;
import dev.workgraph.client.problem.Forbidden;
import dev.workgraph.client.problem.RequestRejected;
import dev.workgraph.client.problem.ServiceUnreachable;
import dev.workgraph.client.problem.Unauthenticated;
import dev.workgraph.client.problem.ValidationFailed;
import dev.workgraph.client.problem.WorkGraphException;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The claiming thread of a worker: waits for a free handler slot, claims (long-polling,
 * so an empty queue costs one request per {@code waitSeconds}, not a request per poll
 * interval), hands the claim over, and backs off with jitter when the service is
 * unavailable. Against a service that does not know {@code waitSeconds} it polls with
 * back-off while nothing is ready.
 *
 * <p>
 * It also says what a handler slot's completion asks for as {@code claimNext} (the same
 * queues and lease length, never while stopping), and hears how that went: a completion
 * that found nothing ready counts as an empty claim of its own (when polling, the loop
 * pauses before its next claim), and one whose claim failed is reported like a failed
 * claim.
 */
final class ClaimLoop implements Runnable, NextClaims {

	private static final AtomicBoolean POLLING_ANNOUNCED = new AtomicBoolean();

	private static final AtomicBoolean PLAIN_COMPLETIONS_ANNOUNCED = new AtomicBoolean();

	private final Settings settings;

	private final ClaimRequest request;

	private final Semaphore slots;

	private final Backoff idleBackoff;

	private final Consumer<TimedClaim> dispatch;

	private final NextClaim nextClaim;

	private volatile boolean claimNextRefused;

	private volatile boolean nothingReadyWithCompletion;

	private volatile boolean stopping;

	private volatile CompletableFuture<Optional<Claim>> inFlight;

	private boolean longPoll;

	/**
	 * @param request the claim to send, with {@code waitSeconds} (null or 0: poll)
	 * @param dispatch takes a claim; owns one slot from then on
	 * @param claimNext whether completions may claim the slot's next item
	 */
	ClaimLoop(Settings settings, ClaimRequest request, Semaphore slots, Backoff idleBackoff,
			Consumer<TimedClaim> dispatch, boolean claimNext) {
		this.settings = settings;
		this.request = request;
		this.slots = slots;
		this.idleBackoff = idleBackoff;
		this.dispatch = dispatch;
		this.nextClaim = claimNext ? NextClaim.like(request) : null;
		this.longPoll = request.waitSeconds() != null && request.waitSeconds() > 0;
	}

	@Override
	public void run() {
		int failures = 0;
		int empty = 0;
		while (!this.stopping) {
			try {
				this.slots.acquire();
			}
			catch (InterruptedException ex) {
				continue; // stop() interrupts; the loop condition decides
			}
			boolean handedOver = false;
			try {
				if (this.stopping) {
					continue; // stopped while waiting for the slot
				}
				if (!this.longPoll && this.nothingReadyWithCompletion) {
					// A completion's claimNext found nothing ready: that was this poll.
					this.nothingReadyWithCompletion = false;
					empty++;
					sleep(this.idleBackoff.delay(empty, null, this.settings.random()));
					if (this.stopping) {
						continue;
					}
				}
				long sentAt = this.settings.now();
				Optional<Claim> claim = claimOnce();
				long receivedAt = this.settings.now();
				failures = 0;
				if (claim.isPresent()) {
					empty = 0;
					if (this.stopping) {
						releaseUnwanted(claim.get());
					}
					else {
						this.dispatch.accept(new TimedClaim(claim.get(), sentAt, receivedAt));
						handedOver = true;
					}
				}
				else if (!this.longPoll) {
					empty++;
					sleep(this.idleBackoff.delay(empty, null, this.settings.random()));
				}
			}
			catch (ValidationFailed rejected) {
				if (this.longPoll && rejected.concerns("waitSeconds")) {
					this.longPoll = false;
					// Said once per process: a hundred workers need not all say it.
					Settings.LOG.log(POLLING_ANNOUNCED.getAndSet(true) ? DEBUG : INFO,
							"The service does not support waiting claims (waitSeconds); polling instead");
					this.settings.tell(() -> this.settings.listener().longPollUnsupported());
				}
				else {
					failures++;
					backOff(rejected, failures);
				}
			}
			catch (Unauthenticated | Forbidden refused) {
				// The same token would be refused again, however long the wait: the
				// worker stops.
				this.stopping = true;
				this.settings.tokenRefused().accept(refused);
			}
			catch (CancellationException ex) {
				// stop() called the long poll off
			}
			catch (WorkGraphException failure) {
				failures++;
				backOff(failure, failures);
			}
			finally {
				this.inFlight = null;
				if (!handedOver) {
					this.slots.release();
				}
			}
		}
	}

	private Optional<Claim> claimOnce() {
		CompletableFuture<Optional<Claim>> claim = this.settings.transport()
			.claim(this.longPoll ? this.request : this.request.withWaitSeconds(null));
		this.inFlight = claim;
		if (this.stopping) {
			claim.cancel(true);
		}
		try {
			return claim.get();
		}
		catch (InterruptedException ex) {
			claim.cancel(true);
			// A claim may have been granted just as it was called off: its answer is
			// lost,
			// and the lease expires unused. Rare; nothing better is possible without it.
			throw new CancellationException("claim called off");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RequestRejected rejected) {
				throw RequestRejected.of(rejected.problem(), rejected.retryAfter().orElse(null));
			}
			if (cause instanceof WorkGraphException known) {
				throw known;
			}
			throw new ServiceUnreachable("Claim failed: " + cause, cause, true, false);
		}
	}

	private void backOff(WorkGraphException failure, int failures) {
		if (this.stopping) {
			return;
		}
		Duration delay = this.settings.retryDelay(failures, failure);
		Settings.LOG.log(failure.isTransient() ? DEBUG : WARNING, "Claim failed ({0}); retrying in {1} ms",
				failure.getMessage(), delay.toMillis());
		this.settings.tell(() -> this.settings.listener().claimFailed(failure, delay));
		sleep(delay);
	}

	// claimNext

	@Override
	public NextClaim nextClaim() {
		return (this.stopping || this.claimNextRefused) ? null : this.nextClaim;
	}

	@Override
	public boolean refusedClaimNext(ValidationFailed refusal) {
		boolean aboutClaimNext = refusal.errors()
			.stream()
			.anyMatch((error) -> error.field().equals("claimNext") || error.field().startsWith("claimNext."));
		if (aboutClaimNext && !this.claimNextRefused) {
			this.claimNextRefused = true;
			Settings.LOG.log(PLAIN_COMPLETIONS_ANNOUNCED.getAndSet(true) ? DEBUG : INFO,
					"The service refused claimNext ({0}); completing without it, and claiming as usual",
					refusal.getMessage());
		}
		return aboutClaimNext;
	}

	@Override
	public void answered(CompletedWithNext answer) {
		RequestRejected failure = answer.nextFailure();
		this.nothingReadyWithCompletion = answer.next().isEmpty() && failure == null;
		if (failure != null) {
			Settings.LOG.log(failure.isTransient() ? DEBUG : WARNING,
					"The claim made with a completion failed ({0}); claiming as usual", failure.getMessage());
			this.settings.tell(() -> this.settings.listener().claimFailed(failure, Duration.ZERO));
		}
	}

	/** A claim that arrived while stopping: give it straight back. */
	void releaseUnwanted(Claim claim) {
		try {
			this.settings.transport().release(claim.lease(), HandlerSlots.SHUTTING_DOWN);
		}
		catch (WorkGraphException ex) {
			Settings.LOG.log(WARNING, "Could not release lease {0} claimed while stopping: {1}", claim.lease().id(),
					ex.getMessage());
		}
	}

	private void sleep(Duration delay) {
		try {
			TimeUnit.NANOSECONDS.sleep(delay.toNanos());
		}
		catch (InterruptedException ex) {
			// stop() interrupts the loop; the loop condition decides
		}
	}

	/**
	 * Stops claiming: no new claim is sent, and one waiting at the service is called off.
	 */
	void stop() {
		this.stopping = true;
		CompletableFuture<Optional<Claim>> claim = this.inFlight;
		if (claim != null) {
			claim.cancel(true);
		}
	}

}
