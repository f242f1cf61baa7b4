package dev.workgraph.change;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The change outbox and its stream (docs/changes.md).
 *
 * @param retention how long a change stays readable (and resumable with
 * {@code Last-Event-ID}); older ones are trimmed
 * @param sequencerInterval how often the sequencer numbers committed changes: the floor
 * of the stream's delay; 0 turns the sequencer off on this instance (another one must run
 * it)
 * @param trimInterval how often changes older than the retention are trimmed
 * @param keepAlive how often an idle stream sends a comment, so that proxies and clients
 * see it alive
 */
@ConfigurationProperties("workgraph.outbox")
record ChangeProperties(@DefaultValue("7d") Duration retention, @DefaultValue("20ms") Duration sequencerInterval,
		@DefaultValue("1m") Duration trimInterval, @DefaultValue("15s") Duration keepAlive) {

	ChangeProperties {
		if (!retention.isPositive()) {
			throw new IllegalArgumentException("workgraph.outbox.retention must be positive");
		}
		if (sequencerInterval.isNegative() || !trimInterval.isPositive() || !keepAlive.isPositive()) {
			throw new IllegalArgumentException("workgraph.outbox.sequencer-interval must not be negative, "
					+ "trim-interval and keep-alive must be positive");
		}
	}

}
