package dev.workgraph.wait;

import dev.workgraph.lease.LeaseProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Runs the timer pass at the reaper's interval on every instance that runs the reaper
 * ({@code workgraph.lease.reaper-enabled}; each batch skips what another instance holds):
 * waits past their deadline, then events past their retention. A failed pass (database
 * away) is logged and the next one tries again.
 */
@Configuration(proxyBeanMethods = false)
class WaitScheduling implements SchedulingConfigurer {

	private static final Logger log = LoggerFactory.getLogger(WaitScheduling.class);

	private final WaitTimeouts timeouts;

	private final LeaseProperties properties;

	WaitScheduling(WaitTimeouts timeouts, LeaseProperties properties) {
		this.timeouts = timeouts;
		this.properties = properties;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (this.properties.reaperEnabled()) {
			registrar.addFixedDelayTask(this::pass, this.properties.reaperInterval());
		}
	}

	private void pass() {
		try {
			int timedOut = this.timeouts.timeOutDue();
			int forgotten = this.timeouts.forgetExpiredEvents();
			if (timedOut > 0 || forgotten > 0) {
				log.debug("Timed out {} waits, forgot {} events past their retention", timedOut, forgotten);
			}
		}
		catch (RuntimeException ex) {
			log.warn("Wait timer pass failed, retrying next interval: {}", ex.getMessage());
		}
	}

}
