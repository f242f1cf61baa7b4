package dev.workgraph.lease;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.workgraph.metrics.AfterCommit;
import dev.workgraph.metrics.QueueTags;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.problem.ProblemCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.stereotype.Component;

/**
 * The lease counters (docs/operations.md, "Metrics"), recorded where each outcome is
 * known: {@code workgraph_claims_total{queue, outcome}},
 * {@code workgraph_lease_endings_total{outcome}} and
 * {@code workgraph_lease_rejections_total{code}}. Endings count once their transaction
 * has committed; every outcome and code has its series from the start, at 0.
 */
@Component
public class LeaseMetrics {

	private static final String CLAIMS = "workgraph.claims";

	private static final String ENDINGS = "workgraph.lease.endings";

	private static final String REJECTIONS = "workgraph.lease.rejections";

	private final MeterRegistry registry;

	private final QueueTags queueTags;

	/*
	 * The counters, looked up once: registering on every claim and ending builds a meter
	 * id and searches the registry, a measurable share of a request's CPU. Queue tags are
	 * bounded by QueueTags, so these maps are too.
	 */
	private final Map<String, Counter> granted = new ConcurrentHashMap<>();

	private final Map<String, Counter> empty = new ConcurrentHashMap<>();

	private final Map<LeaseOutcome, Counter> endings = new EnumMap<>(LeaseOutcome.class);

	private final Map<ProblemCode, Counter> rejections = new ConcurrentHashMap<>();

	LeaseMetrics(MeterRegistry registry, QueueTags queueTags) {
		this.registry = registry;
		this.queueTags = queueTags;
		for (LeaseOutcome outcome : LeaseOutcome.values()) {
			this.endings.put(outcome, endings(outcome));
		}
		for (ProblemCode code : List.of(ProblemCode.LEASE_EXPIRED, ProblemCode.LEASE_ENDED,
				ProblemCode.EPOCH_MISMATCH)) {
			this.rejections.put(code, rejections(code));
		}
		this.empty.put(QueueTags.ANY, claims(QueueTags.ANY, "empty"));
	}

	/** A claim was granted an item of this queue. */
	public void claimGranted(String queue) {
		this.granted.computeIfAbsent(this.queueTags.of(queue), (tag) -> claims(tag, "granted")).increment();
	}

	/**
	 * A claim found nothing ready: counted under its queue when it named exactly one,
	 * else under {@code (any)}, so that the counts add up to the number of claims.
	 */
	public void claimEmpty(List<String> queues) {
		String tag = (queues != null && queues.size() == 1) ? this.queueTags.of(queues.getFirst()) : QueueTags.ANY;
		this.empty.computeIfAbsent(tag, (t) -> claims(t, "empty")).increment();
	}

	/** Leases ended with this outcome, counted when the current transaction commits. */
	public void ended(LeaseOutcome outcome, long count) {
		if (count > 0) {
			Counter counter = this.endings.get(outcome);
			AfterCommit.run(() -> counter.increment(count));
		}
	}

	/**
	 * Fencing refused a write: counted at once, since the refusal rolls the transaction
	 * back.
	 */
	void rejected(ProblemCode code) {
		this.rejections.computeIfAbsent(code, this::rejections).increment();
	}

	private Counter claims(String queueTag, String outcome) {
		return Counter.builder(CLAIMS)
			.description("Claims answered, by the queue of the item granted and outcome (granted or empty)")
			.tag("queue", queueTag)
			.tag("outcome", outcome)
			.register(this.registry);
	}

	private Counter endings(LeaseOutcome outcome) {
		return Counter.builder(ENDINGS)
			.description("Leases ended, by outcome; expiries recorded by the reaper count as expired")
			.tag("outcome", outcome.wire())
			.register(this.registry);
	}

	private Counter rejections(ProblemCode code) {
		return Counter.builder(REJECTIONS)
			.description("Writes under a lease refused by fencing, by problem code")
			.tag("code", code.code())
			.register(this.registry);
	}

}
