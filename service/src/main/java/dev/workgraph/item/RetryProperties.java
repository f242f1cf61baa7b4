package dev.workgraph.item;

import dev.workgraph.model.RetryPolicy;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The retry policy of items that name none and whose parent names none (docs/http-api.md,
 * "Failures and retries").
 *
 * @param maxAttempts attempts (failed or expired leases) before a human is asked
 * @param backoff the wait after the first failed attempt; it doubles with each further
 * one
 * @param maxBackoff the longest wait between attempts
 */
@ConfigurationProperties("workgraph.retry")
public record RetryProperties(@DefaultValue("10") int maxAttempts, @DefaultValue("10s") Duration backoff,
		@DefaultValue("1h") Duration maxBackoff) {

	public RetryProperties {
		if (maxAttempts < 1 || maxAttempts > RetryPolicy.MAX_ATTEMPTS) {
			throw new IllegalArgumentException("workgraph.retry.max-attempts must be between 1 and 1000");
		}
		if (backoff.isNegative() || backoff.toSeconds() > RetryPolicy.MAX_BACKOFF_SECONDS) {
			throw new IllegalArgumentException("workgraph.retry.backoff must be between 0 and 1 day");
		}
		if (maxBackoff.isNegative() || maxBackoff.toSeconds() > RetryPolicy.MAX_MAX_BACKOFF_SECONDS) {
			throw new IllegalArgumentException("workgraph.retry.max-backoff must be between 0 and 30 days");
		}
	}

	/** The defaults as a complete policy. */
	public RetryPolicy policy() {
		return new RetryPolicy(this.maxAttempts, this.backoff.toSeconds(), this.maxBackoff.toSeconds());
	}

}
