package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.workgraph.client.Lease;
import dev.workgraph.client.problem.LeaseRejected;
import dev.workgraph.client.problem.NotFound;
import dev.workgraph.client.problem.RequestRejected;
import dev.workgraph.client.problem.ServiceUnreachable;
import dev.workgraph.client.problem.WorkGraphException;

import static java.lang.System.Logger.Level.DEBUG;

/**
 * Keeps one lease alive: its clock, a renewal every third of its length (retried with
 * back-off for as long as the lease surely lives), and a watchdog at its deadline that
 * gives the lease up when no renewal succeeded in time. Both run on the worker's
 * scheduler.
 *
 * <p>
 * Guarded by the lease's monitor, as the lease's state is. Renewals run only while the
 * lease is held; each change of state bumps the generation, and the answer to a renewal
 * sent before it is ignored.
 */
final class Renewals {

	/** The service's documented default, for a lease that says nothing of its length. */
	private static final Duration DEFAULT_LENGTH = Duration.ofSeconds(300);

	private final ActiveLease lease;

	private final Settings settings;

	private final boolean renewAtOnce;

	// Guarded by the lease:

	private final LeaseClock clock;

	private long generation;

	private int failures;

	private ScheduledFuture<?> renewal;

	private ScheduledFuture<?> watchdog;

	Renewals(ActiveLease lease, Settings settings, TimedClaim claim) {
		this.lease = lease;
		this.settings = settings;
		Duration length = lengthOf(claim.claim().lease());
		// A long-poll claim may have waited at the service before the grant: the send
		// time then says nothing about when the lease started. Take the arrival instead
		// (off by the answer's transit time at most) and renew at once to learn a safe
		// bound.
		this.renewAtOnce = (claim.receivedAt() - claim.sentAt()) > length.toNanos() / 3;
		this.clock = new LeaseClock(this.renewAtOnce ? claim.receivedAt() : claim.sentAt(), length);
	}

	/** Starts keeping the lease alive. */
	void start() {
		schedule(this.renewAtOnce ? 0 : this.clock.untilRenewal(this.settings.now()));
	}

	/** Renews again when due: the lease is held again after an ending write. */
	void resume() {
		this.generation++;
		schedule(this.clock.untilRenewal(this.settings.now()));
	}

	/** No renewals while an ending write is in flight (the watchdog stays). */
	void pause() {
		this.generation++;
		cancel(this.renewal);
	}

	/** The lease ended or is lost: nothing more runs for it. */
	void stop() {
		this.generation++;
		cancel(this.renewal);
		cancel(this.watchdog);
	}

	/** Nanoseconds until the lease must be taken as expired (negative once past). */
	long remaining() {
		return this.clock.remaining(this.settings.now());
	}

	private void schedule(long renewalDelayNanos) {
		scheduleRenewal(renewalDelayNanos);
		cancel(this.watchdog);
		this.watchdog = this.settings.scheduler()
			.schedule(this::checkDeadline, Math.max(0, remaining()), TimeUnit.NANOSECONDS);
	}

	private void scheduleRenewal(long delayNanos) {
		cancel(this.renewal);
		long current = this.generation;
		this.renewal = this.settings.scheduler()
			.schedule(() -> renew(current), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
	}

	/** Whether the lease is held and nothing changed since this generation. */
	private boolean current(long generation) {
		return this.lease.holds() && this.generation == generation;
	}

	private void renew(long generation) {
		long sentAt;
		long remaining;
		synchronized (this.lease) {
			if (!current(generation)) {
				return;
			}
			sentAt = this.settings.now();
			remaining = this.clock.remaining(sentAt);
		}
		if (remaining <= 0) {
			checkDeadline();
			return;
		}
		CompletableFuture<Lease> renewed;
		try {
			renewed = this.settings.transportWithin(remaining).renew(this.lease.ref(), this.settings.leaseSeconds());
		}
		catch (RuntimeException ex) {
			renewed = CompletableFuture.failedFuture(ex);
		}
		renewed.whenComplete((lease, failure) -> renewed(generation, sentAt, lease, failure));
	}

	private void renewed(long generation, long sentAt, Lease renewed, Throwable failure) {
		LeaseLost lostNow = null;
		RequestRejected tokenRefusal = null;
		Duration retryIn = null;
		WorkGraphException renewalFailure = null;
		synchronized (this.lease) {
			if (!current(generation)) {
				return;
			}
			if (failure == null) {
				this.lease.renewed(renewed);
				this.clock.confirmed(sentAt, lengthOf(renewed));
				this.failures = 0;
				schedule(this.clock.untilRenewal(this.settings.now()));
				return;
			}
			Throwable cause = unwrap(failure);
			if (cause instanceof LeaseRejected || cause instanceof NotFound) {
				lostNow = this.lease.loseLocked(LeaseLost.Reason.REFUSED,
						"The service refused to renew the lease: " + cause.getMessage(), cause);
			}
			else if (TokenRefused.refusesToken(cause)) {
				tokenRefusal = (RequestRejected) cause;
				lostNow = this.lease.loseLocked(LeaseLost.Reason.REFUSED, ActiveLease.TOKEN_REFUSED, cause);
			}
			else {
				renewalFailure = (cause instanceof WorkGraphException known) ? known
						: new ServiceUnreachable("Renewal failed: " + cause, cause, true, false);
				this.failures++;
				long now = this.settings.now();
				if (this.clock.expired(now)) {
					lostNow = this.lease.loseLocked(LeaseLost.Reason.RENEWALS_FAILED,
							expired() + ". Last failure: " + cause.getMessage(), cause);
				}
				else {
					retryIn = this.settings.retryDelay(this.failures, renewalFailure);
					long delay = Math.min(retryIn.toNanos(), Math.max(0, this.clock.remaining(now) - 1));
					retryIn = Duration.ofNanos(delay);
					scheduleRenewal(delay);
				}
			}
		}
		if (tokenRefusal != null) {
			this.settings.tokenRefused().accept(tokenRefusal);
		}
		if (lostNow != null) {
			this.lease.announce(lostNow);
		}
		else if (renewalFailure != null) {
			WorkGraphException reported = renewalFailure;
			Duration wait = retryIn;
			Settings.LOG.log(DEBUG, "{0}: renewal failed ({1}); retrying in {2} ms", this.lease, reported.getMessage(),
					wait.toMillis());
			this.settings.tell(() -> this.settings.listener().renewalFailed(this.lease, reported, wait));
		}
	}

	private void checkDeadline() {
		LeaseLost lostNow = null;
		synchronized (this.lease) {
			if (this.lease.holds() && this.clock.expired(this.settings.now())) {
				lostNow = this.lease.loseLocked(LeaseLost.Reason.RENEWALS_FAILED, expired(), null);
			}
		}
		if (lostNow != null) {
			this.lease.announce(lostNow);
		}
	}

	private String expired() {
		return "No renewal succeeded for a whole lease length (" + this.clock.length().toMillis()
				+ " ms); the lease must be taken as expired";
	}

	/**
	 * The length the service granted, from its own two timestamps; failing that, what was
	 * asked for, or the service's documented default.
	 */
	private Duration lengthOf(Lease lease) {
		Duration granted = lease.grantedLength();
		if (granted != null && !granted.isNegative() && !granted.isZero()) {
			return granted;
		}
		Integer asked = this.settings.leaseSeconds();
		return (asked != null) ? Duration.ofSeconds(asked) : DEFAULT_LENGTH;
	}

	private static void cancel(ScheduledFuture<?> task) {
		if (task != null) {
			task.cancel(false);
		}
	}

	private static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
