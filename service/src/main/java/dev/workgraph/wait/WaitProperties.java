package dev.workgraph.wait;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Events and durable waits (docs/waits.md).
 *
 * @param retention how long an event is kept after it arrived, so that a wait registered
 * later is matched by it at once; older events are deleted
 * @param timerBatchSize waits ended per transaction of the pass
 */
@ConfigurationProperties("workgraph.events")
record WaitProperties(@DefaultValue("24h") Duration retention, @DefaultValue("500") int timerBatchSize) {

	WaitProperties {
		if (!retention.isPositive()) {
			throw new IllegalArgumentException("workgraph.events.retention must be positive");
		}
		if (timerBatchSize < 1) {
			throw new IllegalArgumentException("workgraph.events.timer-batch-size must be at least 1");
		}
	}

	/** The retention in whole seconds, for SQL. */
	long retentionSeconds() {
		return Math.max(1, this.retention.toSeconds());
	}

}
