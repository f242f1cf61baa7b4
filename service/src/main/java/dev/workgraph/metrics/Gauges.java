package dev.workgraph.metrics;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * {@code workgraph_ready_items{queue}}, {@code workgraph_active_leases} and
 * {@code workgraph_open_attention_requests}: sampled every
 * {@code workgraph.metrics.gauge-interval} by one query ({@link GaugeSamples}), so a
 * scrape only reads the last sample and many scrapers cost the database nothing. A queue
 * that drains keeps its series at 0. Before the first sample (and while the database is
 * unreachable) the gauges keep their last value;
 * {@code workgraph_gauge_sample_age_seconds} says how old it is.
 */
@Component
class Gauges implements SchedulingConfigurer {

	private static final Logger log = LoggerFactory.getLogger(Gauges.class);

	private final GaugeSamples samples;

	private final MeterRegistry registry;

	private final QueueTags queueTags;

	private final MetricsProperties properties;

	private final Map<String, AtomicLong> readyByTag = new ConcurrentHashMap<>();

	private final AtomicLong activeLeases = new AtomicLong();

	private final AtomicLong openAttentionRequests = new AtomicLong();

	private final AtomicLong scheduledItems = new AtomicLong();

	private volatile long sampledAtNanos = System.nanoTime();

	/** When the next scheduled sample may run (see {@link #sampleQuietly}). */
	private volatile long nextSampleNanos = System.nanoTime();

	Gauges(GaugeSamples samples, MeterRegistry registry, QueueTags queueTags, MetricsProperties properties) {
		this.samples = samples;
		this.registry = registry;
		this.queueTags = queueTags;
		this.properties = properties;
		Gauge.builder("workgraph.active.leases", this.activeLeases, AtomicLong::get)
			.description("Leases held now (sampled)")
			.register(registry);
		Gauge.builder("workgraph.open.attention.requests", this.openAttentionRequests, AtomicLong::get)
			.description("Attention requests waiting for an answer (sampled)")
			.register(registry);
		Gauge.builder("workgraph.scheduled.items", this.scheduledItems, AtomicLong::get)
			.description("Items waiting for their notBefore: scheduled, released with a delay or backing off (sampled)")
			.register(registry);
		Gauge.builder("workgraph.gauge.sample.age", this, (gauges) -> gauges.ageSeconds())
			.description("Seconds since the workgraph gauges were last sampled")
			.baseUnit("seconds")
			.register(registry);
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (this.properties.gaugeInterval().isPositive()) {
			registrar.addFixedDelayTask(this::sampleQuietly, this.properties.gaugeInterval());
		}
	}

	/** Samples the gauges now. */
	void sample() {
		GaugeSamples.Sample sample = this.samples.sample();
		Map<String, Long> byTag = new HashMap<>();
		sample.readyByQueue().forEach((queue, n) -> byTag.merge(this.queueTags.of(queue), n, Long::sum));
		// Queues with a series but nothing ready now drop to 0 rather than vanish.
		this.readyByTag.forEach((tag, value) -> value.set(byTag.getOrDefault(tag, 0L)));
		byTag.forEach((tag, n) -> readyGauge(tag).set(n));
		this.activeLeases.set(sample.activeLeases());
		this.openAttentionRequests.set(sample.openAttentionRequests());
		this.scheduledItems.set(sample.scheduledItems());
		this.sampledAtNanos = System.nanoTime();
	}

	/**
	 * The scheduled sample. A sample's cost grows with the ready backlog (about 0.6 s for
	 * 10⁶ ready items on a small machine), so a slow sample defers the next ones: the
	 * database spends at most about 2% of its time on them.
	 */
	private void sampleQuietly() {
		long started = System.nanoTime();
		if (started - this.nextSampleNanos < 0) {
			return;
		}
		try {
			sample();
		}
		catch (RuntimeException ex) {
			log.warn("Sampling the workgraph gauges failed, retrying next interval: {}", ex.getMessage());
		}
		finally {
			long took = System.nanoTime() - started;
			this.nextSampleNanos = System.nanoTime()
					+ Math.max(0, took * 50 - this.properties.gaugeInterval().toNanos());
		}
	}

	private AtomicLong readyGauge(String tag) {
		return this.readyByTag.computeIfAbsent(tag, (t) -> {
			AtomicLong value = new AtomicLong();
			Gauge.builder("workgraph.ready.items", value, AtomicLong::get)
				.description("Ready items per queue (sampled)")
				.tag("queue", t)
				.register(this.registry);
			return value;
		});
	}

	private double ageSeconds() {
		return (System.nanoTime() - this.sampledAtNanos) / 1e9;
	}

}
