package dev.workgraph.item;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Forgets Idempotency-Keys once they are older than the retention (at least 24 hours).
 */
@Configuration(proxyBeanMethods = false)
class IdempotencyKeyExpiry implements SchedulingConfigurer {

	private static final Logger log = LoggerFactory.getLogger(IdempotencyKeyExpiry.class);

	private final IdempotencyKeys keys;

	private final IdempotencyProperties properties;

	IdempotencyKeyExpiry(IdempotencyKeys keys, IdempotencyProperties properties) {
		this.keys = keys;
		this.properties = properties;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		registrar.addFixedDelayTask(this::forgetExpiredKeys, Duration.ofMinutes(10));
	}

	void forgetExpiredKeys() {
		try {
			this.keys.forgetOlderThan(this.properties.retention());
		}
		catch (RuntimeException ex) {
			log.warn("Could not forget expired idempotency keys, retrying later: {}", ex.getMessage());
		}
	}

	/**
	 * @param retention how long an Idempotency-Key is remembered
	 */
	@ConfigurationProperties("workgraph.idempotency")
	record IdempotencyProperties(@DefaultValue("24h") Duration retention) {

		IdempotencyProperties {
			if (retention.compareTo(Duration.ofHours(24)) < 0) {
				throw new IllegalArgumentException("workgraph.idempotency.retention must be at least 24h");
			}
		}

	}

}
