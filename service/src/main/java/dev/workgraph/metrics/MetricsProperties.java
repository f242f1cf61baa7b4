package dev.workgraph.metrics;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param gaugeInterval how often the gauges (ready items per queue, active leases, open
 * attention requests) are sampled from the database; zero disables sampling
 * @param maxQueueTags how many distinct queue names get a {@code queue} tag of their own;
 * queues beyond it share the tag {@code (other)}, so user-defined queue names cannot grow
 * the number of series without bound
 */
@ConfigurationProperties("workgraph.metrics")
public record MetricsProperties(@DefaultValue("5s") Duration gaugeInterval, @DefaultValue("100") int maxQueueTags) {

	public MetricsProperties {
		if (maxQueueTags < 0) {
			throw new IllegalArgumentException("workgraph.metrics.max-queue-tags must not be negative");
		}
	}

}
