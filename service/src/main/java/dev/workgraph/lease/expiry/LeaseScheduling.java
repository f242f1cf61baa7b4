package dev.workgraph.lease.expiry;

import java.time.Instant;

import dev.workgraph.lease.LeaseProperties;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Schedules the reaper (at most its interval after its last pass, sooner when a lease
 * expires sooner: {@link LeaseReaper#nextPassIn()}) and the claim-queue vacuum.
 *
 * <p>
 * The reaper has a thread of its own, on which each pass runs to its end before the next
 * is planned: the application's scheduler, with virtual threads, only launches a trigger
 * task and plans the next run at once, from the previous pass's figure.
 */
@Configuration(proxyBeanMethods = false)
class LeaseScheduling implements SchedulingConfigurer, DisposableBean {

	/** As long as the shutdown gives requests in flight (spring.lifecycle). */
	private static final int PASS_SHUTDOWN_SECONDS = 20;

	private final ThreadPoolTaskScheduler reaperThread = new ThreadPoolTaskScheduler();

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
			this.reaperThread.setThreadNamePrefix("lease-reaper-");
			// On shutdown a pass in progress finishes its batch before the pool closes
			// (this bean is destroyed before the data source it depends on); the next,
			// not yet due, is dropped.
			this.reaperThread.setWaitForTasksToCompleteOnShutdown(true);
			this.reaperThread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
			this.reaperThread.setAwaitTerminationSeconds(PASS_SHUTDOWN_SECONDS);
			this.reaperThread.initialize();
			this.reaperThread.schedule(this.reaper::runScheduledPass, (context) -> {
				Instant last = context.lastCompletion();
				return ((last != null) ? last : context.getClock().instant()).plus(this.reaper.nextPassIn());
			});
		}
		if (this.properties.vacuumInterval().isPositive()) {
			registrar.addFixedDelayTask(this.maintenance::vacuumChurnedTables, this.properties.vacuumInterval());
		}
	}

	@Override
	public void destroy() {
		this.reaperThread.shutdown();
	}

}
