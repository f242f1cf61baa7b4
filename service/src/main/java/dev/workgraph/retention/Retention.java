package dev.workgraph.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Removes closed trees past retention, a batch of trees per transaction, on a fixed
 * delay, pausing between batches as {@code workgraph.retention.duty-cycle} says. With
 * {@code workgraph.retention.closed-after} unset it schedules nothing.
 */
@Configuration(proxyBeanMethods = false)
class Retention implements SchedulingConfigurer {

	private static final Logger log = LoggerFactory.getLogger(Retention.class);

	private final ClosedTrees trees;

	private final RetentionProperties properties;

	private final Clock clock = Clock.systemUTC();

	Retention(ClosedTrees trees, RetentionProperties properties) {
		this.trees = trees;
		this.properties = properties;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (this.properties.closedAfter() != null) {
			registrar.addFixedDelayTask(this::removeSafely, this.properties.interval());
		}
	}

	private void removeSafely() {
		try {
			removeClosedBefore(this.clock.instant().minus(this.properties.closedAfter()));
		}
		catch (RuntimeException ex) {
			log.warn("Retention pass failed, retrying in {}: {}", this.properties.interval(), ex.getMessage());
		}
	}

	/**
	 * One pass: every root closed before {@code cutoff}, in id order, its tree removed if
	 * it is removable, a batch of roots per transaction, with the duty cycle's pause
	 * after each batch that leaves more to do. Answers the number of items removed; an
	 * interrupted pass (the service stopping) ends after its last committed batch.
	 */
	long removeClosedBefore(Instant cutoff) {
		long removed = 0;
		long trees = 0;
		UUID after = ClosedTrees.LOWEST;
		List<UUID> roots;
		long started;
		do {
			started = System.nanoTime();
			roots = this.trees.rootsClosedBefore(cutoff, after, this.properties.batchSize());
			if (!roots.isEmpty()) {
				ClosedTrees.Removed batch = this.trees.removeTrees(roots, cutoff);
				removed += batch.items();
				trees += batch.trees();
				after = roots.getLast();
			}
		}
		while (roots.size() == this.properties.batchSize() && paused(Duration.ofNanos(System.nanoTime() - started)));
		if (removed > 0) {
			log.info("Retention removed {} closed trees ({} items) closed before {}", trees, removed, cutoff);
		}
		return removed;
	}

	/** Waits as the duty cycle says after a batch; false when interrupted. */
	private boolean paused(Duration batch) {
		try {
			Thread.sleep(this.properties.pauseAfter(batch));
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
