package dev.workgraph.lease;

import java.util.List;

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

	LeaseMetrics(MeterRegistry registry, QueueTags queueTags) {
		this.registry = registry;
		this.queueTags = queueTags;
		for (LeaseOutcome outcome : LeaseOutcome.values()) {
			endings(outcome);
		}
		for (ProblemCode code : List.of(ProblemCode.LEASE_EXPIRED, ProblemCode.LEASE_ENDED,
				ProblemCode.EPOCH_MISMATCH)) {
			rejections(code);
		}
		claims(QueueTags.ANY, "empty");
	}

	/** A claim was granted an item of this queue. */
	void claimGranted(String queue) {
		claims(this.queueTags.of(queue), "granted").increment();
	}

	/**
	 * A claim found nothing ready: counted under its queue when it named exactly one,
	 * else under {@code (any)}, so that the counts add up to the number of claims.
	 */
	void claimEmpty(List<String> queues) {
		String tag = (queues != null && queues.size() == 1) ? this.queueTags.of(queues.getFirst()) : QueueTags.ANY;
		claims(tag, "empty").increment();
	}

	/** Leases ended with this outcome, counted when the current transaction commits. */
	public void ended(LeaseOutcome outcome, long count) {
		if (count > 0) {
			AfterCommit.run(() -> endings(outcome).increment(count));
		}
	}

	/**
	 * Fencing refused a write: counted at once, since the refusal rolls the transaction
	 * back.
	 */
	void rejected(ProblemCode code) {
		rejections(code).increment();
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
