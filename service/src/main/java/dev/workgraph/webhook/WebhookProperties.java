package dev.workgraph.webhook;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Webhooks (docs/changes.md, "Webhooks").
 *
 * @param allowedHosts the hosts a webhook may point at: exact names or addresses,
 * {@code *.example.com} for its subdomains, {@code *} for any; none by default, so that
 * nobody points the service at an internal address by accident
 * @param connectTimeout how long a connection to a target may take
 * @param timeout how long a target may take to answer, connection included
 * @param firstRetry the pause after the first failed attempt; it doubles with each
 * further failure
 * @param maxRetry the longest pause between attempts
 * @param disableAfter a webhook whose target has failed for this long without a success
 * is disabled (25 hours by default: retries go on for more than a day, so that a target
 * down over a night or a weekend day is not given up)
 * @param pollInterval how often due retries are looked for; new changes are delivered as
 * soon as they are published
 */
@ConfigurationProperties("workgraph.webhooks")
record WebhookProperties(@DefaultValue List<String> allowedHosts, @DefaultValue("5s") Duration connectTimeout,
		@DefaultValue("10s") Duration timeout, @DefaultValue("5s") Duration firstRetry,
		@DefaultValue("1h") Duration maxRetry, @DefaultValue("25h") Duration disableAfter,
		@DefaultValue("1s") Duration pollInterval) {

	WebhookProperties {
		allowedHosts = List.copyOf(allowedHosts);
		if (!connectTimeout.isPositive() || !timeout.isPositive() || !firstRetry.isPositive()
				|| maxRetry.compareTo(firstRetry) < 0 || !disableAfter.isPositive() || !pollInterval.isPositive()) {
			throw new IllegalArgumentException("workgraph.webhooks: timeouts, retries and the poll interval must be "
					+ "positive, and max-retry at least first-retry");
		}
	}

	/** How long a dispatcher holds a webhook per delivery: a send and then some. */
	Duration hold() {
		return this.timeout.multipliedBy(2).plusSeconds(10);
	}

	/** The pause before the next attempt after this many failed ones. */
	Duration retryAfter(int failedAttempts) {
		Duration pause = this.firstRetry;
		for (int i = 1; i < failedAttempts && pause.compareTo(this.maxRetry) < 0; i++) {
			pause = pause.multipliedBy(2);
		}
		return (pause.compareTo(this.maxRetry) > 0) ? this.maxRetry : pause;
	}

}
