package dev.workgraph.retention;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param closedAfter how long a closed tree is kept after its last item closed; unset
 * (the default): nothing is ever removed
 * @param interval the pause between two passes
 * @param batchSize how many candidate roots one pass reads, and removes in one
 * transaction, at a time: the transaction holds the locks of that many trees' rows for
 * its duration
 * @param dutyCycle the share of a pass's time spent removing: after each batch the pass
 * waits until the batch's time is this share of the time since the batch began, so that a
 * backlog (retention switched on for a year of history) is removed beside the load
 * instead of taking a core of PostgreSQL from it; the wait grows with the batches' time
 * when the database is busy. 1: no wait
 */
@ConfigurationProperties("workgraph.retention")
record RetentionProperties(Duration closedAfter, @DefaultValue("1m") Duration interval,
		@DefaultValue("100") int batchSize, @DefaultValue("0.1") double dutyCycle) {

	RetentionProperties {
		if (closedAfter != null && closedAfter.compareTo(Duration.ofHours(1)) < 0) {
			throw new IllegalArgumentException("workgraph.retention.closed-after must be at least 1h");
		}
		if (interval.isNegative() || interval.isZero()) {
			throw new IllegalArgumentException("workgraph.retention.interval must be positive");
		}
		if (batchSize < 1 || batchSize > 1_000) {
			throw new IllegalArgumentException("workgraph.retention.batch-size must be between 1 and 1000");
		}
		if (!(dutyCycle > 0 && dutyCycle <= 1)) {
			throw new IllegalArgumentException("workgraph.retention.duty-cycle must be above 0 and at most 1");
		}
	}

	/** The wait after a batch that took {@code batch}, as the duty cycle allows. */
	Duration pauseAfter(Duration batch) {
		return Duration.ofNanos((long) (batch.toNanos() * (1 - this.dutyCycle) / this.dutyCycle));
	}

}
