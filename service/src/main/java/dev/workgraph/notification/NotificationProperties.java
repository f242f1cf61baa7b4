package dev.workgraph.notification;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The connection on which each instance listens for items becoming ready (long-poll
 * claims, docs/adr/0008), and how waiters guard against lost notifications.
 *
 * @param url the JDBC URL of the listening connection; blank: the datasource's. Set it
 * when the pool goes through a pooler that cannot carry {@code LISTEN} (PgBouncer in
 * transaction mode): the listener needs a session of its own on PostgreSQL itself
 * @param username its user; blank: the datasource's
 * @param password its password; null: the datasource's
 * @param recheckInterval how often a waiting claim that has heard nothing checks anyway
 * @param minReconnectDelay the pause before the first attempt to reconnect the listener;
 * it doubles with each failed attempt
 * @param maxReconnectDelay the longest pause between attempts to reconnect the listener
 * @param maxWaitingClaimsPerToken how many long-poll claims of one token may wait at once
 * on an instance; one more is refused with 429 {@code too_many_waiting_claims}
 */
@ConfigurationProperties("workgraph.notifications")
public record NotificationProperties(String url, String username, String password,
		@DefaultValue("5s") Duration recheckInterval, @DefaultValue("100ms") Duration minReconnectDelay,
		@DefaultValue("5s") Duration maxReconnectDelay, @DefaultValue("64") int maxWaitingClaimsPerToken) {

	public NotificationProperties {
		if (!recheckInterval.isPositive()) {
			throw new IllegalArgumentException("workgraph.notifications.recheck-interval must be positive");
		}
		if (maxWaitingClaimsPerToken < 1) {
			throw new IllegalArgumentException(
					"workgraph.notifications.max-waiting-claims-per-token must be at least 1");
		}
		if (!minReconnectDelay.isPositive() || maxReconnectDelay.compareTo(minReconnectDelay) < 0) {
			throw new IllegalArgumentException("workgraph.notifications.min-reconnect-delay must be positive "
					+ "and no longer than workgraph.notifications.max-reconnect-delay");
		}
	}

}
