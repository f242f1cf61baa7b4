package dev.workgraph.chaos;

import java.time.Instant;
import java.util.UUID;

/**
 * A lease a simulated worker holds, and what it knows of the lease's life on its own
 * monotonic clock: {@code aliveUntilNanos} when it surely still lives (the request that
 * granted or renewed it sent, plus its length), {@code deadAfterNanos} when it is surely
 * dead (that answer received, plus its length); {@code uncertain} once a renewal's
 * outcome was unknown. {@code expiresAt} is the service's word on the expiry, for a
 * worker that schedules by its own wall clock (null where the answer does not say).
 */
final class Held {

	final UUID leaseId;

	final long epoch;

	final UUID itemId;

	int leaseSeconds;

	long aliveUntilNanos;

	long deadAfterNanos;

	Instant expiresAt;

	boolean uncertain;

	long renewedNanos;

	int steps;

	int checkpoints;

	Held(Exchange grant, int seconds, Instant expiresAt) {
		this.leaseId = grant.leaseId();
		this.epoch = grant.epoch();
		this.itemId = grant.itemId();
		granted(grant, seconds, expiresAt);
	}

	Held(Exchange grant, int seconds) {
		this(grant, seconds, null);
	}

	/**
	 * A claim or renewal succeeded: the expiry is now + length on PostgreSQL's clock,
	 * whatever earlier renewals with unknown outcomes did.
	 */
	void granted(Exchange exchange, int seconds, Instant expiresAt) {
		this.leaseSeconds = seconds;
		this.aliveUntilNanos = exchange.sentNanos() + seconds * 1_000_000_000L;
		this.deadAfterNanos = exchange.receivedNanos() + seconds * 1_000_000_000L;
		this.renewedNanos = exchange.receivedNanos();
		this.expiresAt = expiresAt;
		this.uncertain = false;
	}

	void granted(Exchange exchange, int seconds) {
		granted(exchange, seconds, null);
	}

	/**
	 * A renewal (or renewing checkpoint) whose outcome is unknown may have renewed it:
	 * alive no longer than the new length from its answer.
	 */
	void mayHaveBeenRenewed(Exchange exchange, int seconds) {
		this.uncertain = true;
		this.deadAfterNanos = Math.max(this.deadAfterNanos, exchange.receivedNanos() + seconds * 1_000_000_000L);
	}

	/** Renews halfway through what is surely left. */
	long millisUntilRenewal() {
		return (this.aliveUntilNanos - System.nanoTime()) / 1_000_000 - this.leaseSeconds * 500L;
	}

	/**
	 * Answered a grant or renewal within the last quarter second: even a client that
	 * believes its lease is always about to run out renews at most a few times a second.
	 */
	boolean renewedJustNow() {
		return System.nanoTime() - this.renewedNanos <= 250_000_000L;
	}

}
