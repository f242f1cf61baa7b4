package dev.workgraph.wait;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.Cancellation;
import dev.workgraph.item.Readiness;
import dev.workgraph.lease.SystemHolds;
import dev.workgraph.metrics.AfterCommit;
import dev.workgraph.sql.Transactions;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.stereotype.Component;

/**
 * Ends open waits whose deadline passed (PostgreSQL's clock) and applies their
 * {@code onTimeout}: {@code ready} clears the blocker, {@code cancel} cancels the item,
 * {@code ask} holds it with a blocking system request of kind {@code wait_timed_out}.
 * Safe with any number of instances: each batch locks the waits' items with
 * {@code SKIP LOCKED}, and a wait changes only while {@code open}, so an event and the
 * deadline that race for one wait never both apply.
 */
@Component
class WaitTimeouts {

	private final Transactions transactions;

	private final Waits waits;

	private final Events events;

	private final Readiness readiness;

	private final Cancellation cancellation;

	private final SystemHolds holds;

	private final WaitProperties properties;

	private final WaitMetrics metrics;

	private final JsonMapper json;

	WaitTimeouts(Transactions transactions, Waits waits, Events events, Readiness readiness, Cancellation cancellation,
			SystemHolds holds, WaitProperties properties, WaitMetrics metrics, JsonMapper json) {
		this.transactions = transactions;
		this.waits = waits;
		this.events = events;
		this.readiness = readiness;
		this.cancellation = cancellation;
		this.holds = holds;
		this.properties = properties;
		this.metrics = metrics;
		this.json = json;
	}

	/** Ends every wait due by now, batch by batch; returns how many. */
	int timeOutDue() {
		int total = 0;
		while (true) {
			Batch batch = this.transactions.inTransaction(this::timeOutBatch);
			total += batch.timedOut();
			if (batch.due() < this.properties.timerBatchSize()) {
				return total;
			}
		}
	}

	/** Deletes the events past their retention; returns how many. */
	int forgetExpiredEvents() {
		int total = 0;
		while (true) {
			int deleted = this.events.deleteExpired(this.properties.retentionSeconds(),
					this.properties.timerBatchSize());
			total += deleted;
			if (deleted < this.properties.timerBatchSize()) {
				return total;
			}
		}
	}

	private Batch timeOutBatch() {
		List<UUID> due = this.waits.lockDue(this.properties.timerBatchSize());
		if (due.isEmpty()) {
			return new Batch(0, 0);
		}
		List<Waits.TimedOut> timedOut = this.waits.timeOutIfOpen(due);
		List<BlockerDelta> deltas = new ArrayList<>();
		List<Waits.TimedOut> cancelling = new ArrayList<>();
		for (Waits.TimedOut wait : timedOut) {
			deltas.add(BlockerDelta.waits(wait.itemId(), -1));
			switch (wait.onTimeout()) {
				case READY -> {
				}
				case ASK -> {
					this.holds.open(wait.itemId(), wait.leaseId(), wait.epoch(), "wait_timed_out", question(wait),
							context(wait));
					deltas.add(BlockerDelta.attentionRequests(wait.itemId(), +1));
				}
				case CANCEL -> cancelling.add(wait);
			}
		}
		this.readiness.adjust(deltas);
		for (Waits.TimedOut wait : cancelling) {
			this.cancellation.cancelSubtree(wait.itemId(), "The wait for event " + wait.name() + " / " + wait.key()
					+ " timed out at " + wait.timeoutAt() + " (onTimeout: cancel)");
		}
		int count = timedOut.size();
		AfterCommit.run(() -> this.metrics.timedOut(count));
		return new Batch(due.size(), count);
	}

	/**
	 * A batch: the due waits it found, and those it timed out (an event took the rest).
	 */
	private record Batch(int due, int timedOut) {
	}

	private static String question(Waits.TimedOut wait) {
		return "Worker " + wait.workerId() + " (epoch " + wait.epoch() + ") parked this item until the event "
				+ wait.name() + " with key " + wait.key() + " arrived, and it did not arrive by the deadline, "
				+ wait.timeoutAt() + ". The item is held instead of running again without it. Resolve this request "
				+ "to let the item run again (the next holder sees the wait timed out); or cancel the item.";
	}

	private String context(Waits.TimedOut wait) {
		ObjectNode context = this.json.createObjectNode();
		context.put("kind", "wait_timed_out");
		context.put("waitId", wait.id().toString());
		context.put("eventName", wait.name());
		context.put("eventKey", wait.key());
		context.put("timeoutAt", wait.timeoutAt().toString());
		context.put("leaseId", wait.leaseId().toString());
		context.put("workerId", wait.workerId());
		return context.toString();
	}

}
