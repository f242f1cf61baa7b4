package dev.workgraph.metrics;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class MetricsConfiguration {

	/** One bound for every series with a queue tag. */
	@Bean
	QueueTags queueTags(MetricsProperties properties) {
		return new QueueTags(properties.maxQueueTags());
	}

}
