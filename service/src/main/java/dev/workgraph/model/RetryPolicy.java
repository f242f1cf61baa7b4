package dev.workgraph.model;

import java.time.Duration;

import org.hibernate.validator.constraints.Range;
import tools.jackson.databind.json.JsonMapper;

/**
 * An item's retry policy, as a request gives it (each field optional: a missing one takes
 * the service's default) and as the item view shows it (complete).
 */
public record RetryPolicy(@Range(min = 1, max = MAX_ATTEMPTS) Integer maxAttempts,
		@Range(min = 0, max = MAX_BACKOFF_SECONDS) Long backoffSeconds,
		@Range(min = 0, max = MAX_MAX_BACKOFF_SECONDS) Long maxBackoffSeconds) {

	public static final int MAX_ATTEMPTS = 1000;

	public static final int MAX_BACKOFF_SECONDS = 86_400;

	public static final int MAX_MAX_BACKOFF_SECONDS = 2_592_000;

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/** This policy with the defaults' values where it names none. */
	public RetryPolicy completedBy(RetryPolicy defaults) {
		return new RetryPolicy((this.maxAttempts != null) ? this.maxAttempts : defaults.maxAttempts(),
				(this.backoffSeconds != null) ? this.backoffSeconds : defaults.backoffSeconds(),
				(this.maxBackoffSeconds != null) ? this.maxBackoffSeconds : defaults.maxBackoffSeconds());
	}

	/** The largest share of a back-off that jitter takes off it. */
	public static final double JITTER = 0.2;

	/**
	 * The wait after the {@code attempts}-th attempt failed or expired:
	 * {@code min(maxBackoffSeconds, backoffSeconds × 2^(attempts−1))}, less up to 20 %
	 * jitter ({@code random} in [0, 1)) so that items failed by one outage do not all
	 * return at the same instant. Never more than the maximum, never negative. Call it on
	 * a complete policy.
	 */
	public Duration backoff(int attempts, double random) {
		double seconds = Math.min(this.maxBackoffSeconds, this.backoffSeconds * Math.pow(2, Math.max(0, attempts - 1)));
		return Duration.ofMillis(Math.round(seconds * (1 - JITTER * random) * 1000));
	}

	/** The policy as stored on the item: a JSON object. */
	public String json() {
		return JSON.writeValueAsString(this);
	}

	/**
	 * A stored policy; the defaults when the item has none (rows from before policies).
	 */
	public static RetryPolicy of(String json, RetryPolicy defaults) {
		return (json != null) ? JSON.readValue(json, RetryPolicy.class).completedBy(defaults) : defaults;
	}

}
