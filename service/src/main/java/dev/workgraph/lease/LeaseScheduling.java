package dev.workgraph.lease;

import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/** Schedules the reaper and the claim-queue vacuum at their configured intervals. */
@Configuration(proxyBeanMethods = false)
class LeaseScheduling implements SchedulingConfigurer {

	private final LeaseProperties properties;

	private final LeaseReaper reaper;

	private final QueueMaintenance maintenance;

	LeaseScheduling(LeaseProperties properties, LeaseReaper reaper, QueueMaintenance maintenance) {
		this.properties = properties;
		this.reaper = reaper;
		this.maintenance = maintenance;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (this.properties.reaperEnabled()) {
			registrar.addFixedDelayTask(this.reaper::runScheduledPass, this.properties.reaperInterval());
		}
		if (this.properties.vacuumInterval().isPositive()) {
			registrar.addFixedDelayTask(this.maintenance::vacuumChurnedTables, this.properties.vacuumInterval());
		}
	}

}
