package dev.workgraph.attention;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.Cancellation;
import dev.workgraph.item.Readiness;
import dev.workgraph.lease.LeaseProperties;
import dev.workgraph.metrics.AfterCommit;
import dev.workgraph.sql.Transactions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.stereotype.Component;

/**
 * Applies questions' deadlines (PostgreSQL's clock): {@code default} answers the question
 * with its default resolution as {@code system}, {@code cancel} cancels the item,
 * {@code escalate} leaves it open with {@code escalatedAt} set and counts it in
 * {@code workgraph_attention_escalations_total}.
 *
 * <p>
 * A human's answer and the deadline race safely: both lock the item first (the pass with
 * {@code SKIP LOCKED}, so several instances never wait for each other), and each changes
 * the request only while it is open. Whichever comes second finds it resolved: the human
 * gets {@code 409 already_resolved}, the pass does nothing.
 */
@Component
class AttentionDeadlines {

	private final Transactions transactions;

	private final AttentionRequests requests;

	private final Readiness readiness;

	private final Cancellation cancellation;

	private final Counter escalations;

	private final int batchSize;

	AttentionDeadlines(Transactions transactions, AttentionRequests requests, Readiness readiness,
			Cancellation cancellation, MeterRegistry registry, LeaseProperties properties) {
		this.transactions = transactions;
		this.requests = requests;
		this.readiness = readiness;
		this.cancellation = cancellation;
		this.escalations = Counter.builder("workgraph.attention.escalations")
			.description("Questions whose deadline passed unanswered and were escalated")
			.register(registry);
		this.batchSize = properties.reaperBatchSize();
	}

	/** Applies every deadline due by now, batch by batch; returns how many it applied. */
	int applyDue() {
		int total = 0;
		while (true) {
			Batch batch = this.transactions.inTransaction(this::applyBatch);
			total += batch.applied();
			if (batch.locked() < this.batchSize) {
				return total;
			}
		}
	}

	private Batch applyBatch() {
		List<UUID> locked = this.requests.lockDue(this.batchSize);
		if (locked.isEmpty()) {
			return new Batch(0, 0);
		}
		List<AttentionRequests.Due> due = this.requests.dueOfLockedItems(locked.stream().distinct().toList());
		List<UUID> escalating = new ArrayList<>();
		List<BlockerDelta> answered = new ArrayList<>();
		List<AttentionRequests.Due> cancelling = new ArrayList<>();
		int applied = 0;
		for (AttentionRequests.Due request : due) {
			switch (request.action()) {
				case "escalate" -> escalating.add(request.id());
				case "default" -> {
					if (this.requests.resolveIfOpen(request.id(), request.resolution(), "system").isPresent()) {
						applied++;
						if (request.blocking()) {
							answered.add(BlockerDelta.attentionRequests(request.itemId(), -1));
						}
					}
				}
				case "cancel" -> cancelling.add(request);
				default -> throw new IllegalStateException("Unknown deadline action " + request.action());
			}
		}
		this.readiness.adjust(answered);
		for (AttentionRequests.Due request : cancelling) {
			// The cancellation resolves the item's open requests, this one included.
			if (!this.cancellation
				.cancelSubtree(request.itemId(),
						"The question '" + abbreviated(request.question())
								+ "' was not answered by its deadline (onTimeout: cancel)")
				.isEmpty()) {
				applied++;
			}
			else if (this.requests
				.resolveIfOpen(request.id(), "The item was already closed when the deadline passed", "system")
				.isPresent()) {
				// A question left open on an item that completed: nothing to cancel.
				applied++;
			}
		}
		int escalated = escalating.isEmpty() ? 0 : this.requests.escalateIfOpen(escalating);
		AfterCommit.run(() -> this.escalations.increment(escalated));
		return new Batch(locked.size(), applied + escalated);
	}

	private static String abbreviated(String question) {
		return (question.length() <= 200) ? question : question.substring(0, 200) + "…";
	}

	/** A batch: the due requests it locked, and the deadlines it applied. */
	private record Batch(int locked, int applied) {
	}

}
