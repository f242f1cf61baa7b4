package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Exponential back-off with full jitter: the n-th retry in a row waits a random time
 * between zero and {@code min(max, initial × 2^(n-1))}, so that many workers failing
 * together do not retry together. When the service says how long to wait
 * ({@code Retry-After}), the wait is at least that, spread by up to {@code initial}.
 *
 * @param initial the ceiling of the first wait
 * @param max the largest ceiling
 */
public record Backoff(Duration initial, Duration max) {

	/** The longest {@code Retry-After} honoured; anything longer is taken as this. */
	static final Duration LONGEST_RETRY_AFTER = Duration.ofMinutes(5);

	public Backoff {
		Objects.requireNonNull(initial, "initial");
		Objects.requireNonNull(max, "max");
		if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
			throw new IllegalArgumentException("Back-off needs 0 < initial <= max, got " + initial + " and " + max);
		}
	}

	public static Backoff exponential(Duration initial, Duration max) {
		return new Backoff(initial, max);
	}

	/**
	 * How long to wait before retry number {@code attempt} (1 for the first retry).
	 * @param retryAfter what the service asked for, or null
	 */
	public Duration delay(int attempt, Duration retryAfter, RandomGenerator random) {
		if (retryAfter != null && !retryAfter.isNegative()) {
			Duration asked = (retryAfter.compareTo(LONGEST_RETRY_AFTER) > 0) ? LONGEST_RETRY_AFTER : retryAfter;
			return asked.plusNanos(random.nextLong(this.initial.toNanos() + 1));
		}
		return Duration.ofNanos(random.nextLong(ceiling(attempt).toNanos() + 1));
	}

	/** The upper bound of the wait before retry number {@code attempt}. */
	public Duration ceiling(int attempt) {
		long maxNanos = this.max.toNanos();
		long ceiling = this.initial.toNanos();
		for (int retry = 1; retry < attempt && ceiling < maxNanos; retry++) {
			ceiling = (ceiling > maxNanos / 2) ? maxNanos : ceiling * 2;
		}
		return Duration.ofNanos(Math.min(ceiling, maxNanos));
	}

}
