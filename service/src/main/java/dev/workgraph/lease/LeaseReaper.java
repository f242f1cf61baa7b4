package dev.workgraph.lease;

import java.util.ArrayList;
import java.util.List;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.Readiness;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.support.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Records leases past expiresAt (PostgreSQL's clock) with outcome {@code expired} and
 * returns their items to circulation. Until it runs, an expired lease's item stays
 * {@code leased} and cannot be claimed, so there is never a moment when the old holder's
 * lease is dead and its epoch not yet superseded but the item is granted anew; the next
 * claim increments the epoch, fencing the former holder.
 *
 * <p>
 * When the service shuts down, a pass in progress finishes the batch in hand (one
 * transaction) and starts no other: stopped first of all, so that its last batch is
 * committed long before the connection pool closes. What is left is recorded by another
 * instance or at the next start.
 */
@Component
public class LeaseReaper implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(LeaseReaper.class);

	private final Transactions transactions;

	private final ExpiredLeases expiredLeases;

	private final Readiness readiness;

	private final List<ExpiryListener> listeners;

	private final int batchSize;

	private final LeaseMetrics metrics;

	private volatile boolean running;

	LeaseReaper(Transactions transactions, ExpiredLeases expiredLeases, Readiness readiness,
			List<ExpiryListener> listeners, LeaseProperties properties, LeaseMetrics metrics) {
		this.transactions = transactions;
		this.expiredLeases = expiredLeases;
		this.readiness = readiness;
		this.listeners = listeners;
		this.batchSize = properties.reaperBatchSize();
		this.metrics = metrics;
	}

	/**
	 * Records every lease expired by now, batch by batch (or until the service stops);
	 * returns how many this call recorded.
	 */
	public int reapExpired() {
		int total = 0;
		while (this.running) {
			int recorded = this.transactions.inTransaction(this::reapBatch);
			total += recorded;
			if (recorded < this.batchSize) {
				return total;
			}
		}
		if (total > 0) {
			log.info("Lease reaper stopped between batches; its last pass recorded {} expired leases", total);
		}
		return total;
	}

	private int reapBatch() {
		List<ExpiredLease> expired = this.expiredLeases.reapExpired(this.batchSize);
		if (expired.isEmpty()) {
			return 0;
		}
		List<BlockerDelta> deltas = new ArrayList<>();
		this.listeners.forEach((listener) -> deltas.addAll(listener.leasesExpired(expired)));
		this.readiness.adjust(deltas, expired.stream().map(ExpiredLease::itemId).toList());
		this.metrics.ended(LeaseOutcome.EXPIRED, expired.size());
		return expired.size();
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * The scheduled pass: a failure (database down) is logged and the next pass tries
	 * again.
	 */
	void runScheduledPass() {
		try {
			int recorded = reapExpired();
			if (recorded > 0) {
				log.debug("Recorded {} expired leases", recorded);
			}
		}
		catch (RuntimeException ex) {
			log.warn("Lease reaper pass failed, retrying next interval: {}", ex.getMessage());
		}
	}

}
