package dev.workgraph.wait;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.stereotype.Component;

/**
 * {@code workgraph_events_total{outcome="recorded"|"duplicate"}} and
 * {@code workgraph_waits_total{outcome="registered"|"matched"|"timed_out"}}; every series
 * exists from the start, at 0. Counted after the commit (callers count outside the
 * transaction, or through {@code AfterCommit}).
 */
@Component
class WaitMetrics {

	private final Counter recorded;

	private final Counter duplicate;

	private final Counter registered;

	private final Counter matched;

	private final Counter timedOut;

	WaitMetrics(MeterRegistry registry) {
		this.recorded = events(registry, "recorded");
		this.duplicate = events(registry, "duplicate");
		this.registered = waits(registry, "registered");
		this.matched = waits(registry, "matched");
		this.timedOut = waits(registry, "timed_out");
	}

	private static Counter events(MeterRegistry registry, String outcome) {
		return Counter.builder("workgraph.events")
			.description("Events received by POST /events: recorded, or a repeat of a sender's id")
			.tag("outcome", outcome)
			.register(registry);
	}

	private static Counter waits(MeterRegistry registry, String outcome) {
		return Counter.builder("workgraph.waits")
			.description("Durable waits registered, matched by an event, or timed out")
			.tag("outcome", outcome)
			.register(registry);
	}

	void registered(boolean matchedAtOnce) {
		this.registered.increment();
		if (matchedAtOnce) {
			this.matched.increment();
		}
	}

	void received(WaitCommands.Received received) {
		(received.duplicate() ? this.duplicate : this.recorded).increment();
		if (!received.duplicate()) {
			this.matched.increment(received.matchedWaits());
		}
	}

	void timedOut(int count) {
		this.timedOut.increment(count);
	}

}
