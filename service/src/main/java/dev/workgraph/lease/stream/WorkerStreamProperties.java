package dev.workgraph.lease.stream;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The worker stream's limits (docs/worker-stream.md).
 *
 * @param maxStreamsPerToken how many streams one token may hold open at once on an
 * instance; one more is refused with 429 {@code too_many_streams}. A worker process opens
 * one, so this bounds what a leaked or hostile token can take of an instance
 */
@ConfigurationProperties("workgraph.stream")
record WorkerStreamProperties(@DefaultValue("16") int maxStreamsPerToken) {

	WorkerStreamProperties {
		if (maxStreamsPerToken < 1) {
			throw new IllegalArgumentException("workgraph.stream.max-streams-per-token must be at least 1");
		}
	}

}
