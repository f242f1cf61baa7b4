package dev.workgraph.client.worker;

import java.time.Duration;

/**
 * How long a lease has left, by elapsed monotonic time only ({@link System#nanoTime()}),
 * never by comparing the service's {@code expiresAt} with the local wall clock: the two
 * clocks may disagree by any amount.
 *
 * <p>
 * The service sets {@code expiresAt} to its own "now" plus the lease length when it
 * processes a claim or renewal, which is after the request was sent. So the lease lives
 * at least until <em>send time + length</em> on the local monotonic clock: that is the
 * deadline kept here, always on the safe side. Renewal is due a third of the length after
 * the last confirmed send, leaving two thirds of the lease for retries.
 *
 * <p>
 * Not thread-safe; its owner synchronizes.
 */
final class LeaseClock {

	private long confirmedAt;

	private long lengthNanos;

	/**
	 * @param confirmedAt the {@code System.nanoTime()} at which the lease surely was
	 * alive for {@code length} more (the send time of the claim)
	 */
	LeaseClock(long confirmedAt, Duration length) {
		this.confirmedAt = confirmedAt;
		this.lengthNanos = positive(length);
	}

	/**
	 * A renewal sent at {@code sentAt} succeeded with this length. A late answer to an
	 * older request never moves the deadline back.
	 */
	void confirmed(long sentAt, Duration length) {
		if (sentAt - this.confirmedAt > 0) {
			this.confirmedAt = sentAt;
		}
		this.lengthNanos = positive(length);
	}

	/** When the next renewal is due. */
	long renewalDue() {
		return this.confirmedAt + this.lengthNanos / 3;
	}

	/** When the lease must be assumed dead unless a renewal succeeded since. */
	long deadline() {
		return this.confirmedAt + this.lengthNanos;
	}

	/** Nanoseconds until the deadline (negative once past it). */
	long remaining(long now) {
		return deadline() - now;
	}

	boolean expired(long now) {
		return remaining(now) <= 0;
	}

	/** Nanoseconds until the next renewal is due (zero or negative: due now). */
	long untilRenewal(long now) {
		return renewalDue() - now;
	}

	Duration interval() {
		return Duration.ofNanos(this.lengthNanos / 3);
	}

	Duration length() {
		return Duration.ofNanos(this.lengthNanos);
	}

	private static long positive(Duration length) {
		if (length == null || length.isNegative() || length.isZero()) {
			throw new IllegalArgumentException("A lease length must be positive, got " + length);
		}
		return length.toNanos();
	}

}
