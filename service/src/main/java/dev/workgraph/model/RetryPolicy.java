package dev.workgraph.model;

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
