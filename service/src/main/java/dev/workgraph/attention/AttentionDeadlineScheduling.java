package dev.workgraph.attention;

import dev.workgraph.lease.LeaseProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Applies questions' deadlines at the reaper's interval on every instance that runs the
 * reaper ({@code workgraph.lease.reaper-enabled}); a failed pass is logged and the next
 * one tries again.
 */
@Configuration(proxyBeanMethods = false)
class AttentionDeadlineScheduling implements SchedulingConfigurer {

	private static final Logger log = LoggerFactory.getLogger(AttentionDeadlineScheduling.class);

	private final AttentionDeadlines deadlines;

	private final LeaseProperties properties;

	AttentionDeadlineScheduling(AttentionDeadlines deadlines, LeaseProperties properties) {
		this.deadlines = deadlines;
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
			int applied = this.deadlines.applyDue();
			if (applied > 0) {
				log.debug("Applied {} questions' deadlines", applied);
			}
		}
		catch (RuntimeException ex) {
			log.warn("Question deadline pass failed, retrying next interval: {}", ex.getMessage());
		}
	}

}
