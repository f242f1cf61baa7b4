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
 */
@ConfigurationProperties("workgraph.retention")
record RetentionProperties(Duration closedAfter, @DefaultValue("1m") Duration interval,
		@DefaultValue("100") int batchSize) {

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
	}

}
