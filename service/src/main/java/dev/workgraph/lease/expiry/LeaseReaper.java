package dev.workgraph.lease.expiry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.NotBefore;
import dev.workgraph.item.Readiness;
import dev.workgraph.item.RetryProperties;
import dev.workgraph.lease.LeaseMetrics;
import dev.workgraph.lease.LeaseProperties;
import dev.workgraph.lease.ProgressGuard;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.model.RetryPolicy;
import dev.workgraph.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Records leases past expiresAt (PostgreSQL's clock) with outcome {@code expired} and
 * returns their items to circulation; in the same passes, promotes scheduled items whose
 * {@code notBefore} has come. Until it runs, an expired lease's item stays {@code leased}
 * and cannot be claimed, so there is never a moment when the old holder's lease is dead
 * and its epoch not yet superseded but the item is granted anew; the next claim
 * increments the epoch, fencing the former holder.
 *
 * <p>
 * Passes run at most {@code reaper-interval} apart, and sooner when a lease expires
 * sooner: after each pass the reaper looks up the earliest expiry and wakes just after
 * it, so a burst of expiries is recorded from its first millisecond instead of up to an
 * interval later.
 *
 * <p>
 * When a pass's first batch comes back full (a burst), the rest is recorded by
 * {@code reaper-parallelism} transactions at once, each batch after batch until one comes
 * back short. They never wait for each other: each takes its leases and items with
 * {@code SKIP LOCKED}, and an expiry touches only its own item. One transaction alone
 * keeps a core of PostgreSQL about two-thirds busy (the rest is commits and round trips);
 * two record a burst of 10,000 expiries in about two-thirds of the time.
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

	private final int parallelism;

	private final LeaseMetrics metrics;

	private final RetryPolicy retryDefaults;

	private final ProgressGuard progress;

	/**
	 * When something has expired but could not be recorded (its item is locked by a
	 * worker's write in flight), the next look is this much later rather than at once.
	 */
	static final Duration LOCKED_EXPIRY_RETRY = Duration.ofMillis(100);

	/** Past the expiry by PostgreSQL's clock, so that the pass's now() is past it too. */
	private static final Duration AFTER_EXPIRY = Duration.ofMillis(2);

	private final Duration interval;

	private volatile Duration nextPassIn;

	private volatile boolean running;

	LeaseReaper(Transactions transactions, ExpiredLeases expiredLeases, Readiness readiness,
			List<ExpiryListener> listeners, LeaseProperties properties, LeaseMetrics metrics, RetryProperties retry,
			ProgressGuard progress) {
		this.progress = progress;
		this.retryDefaults = retry.policy();
		this.transactions = transactions;
		this.expiredLeases = expiredLeases;
		this.readiness = readiness;
		this.listeners = listeners;
		this.batchSize = properties.reaperBatchSize();
		this.parallelism = properties.reaperParallelism();
		this.metrics = metrics;
		this.interval = properties.reaperInterval();
		this.nextPassIn = this.interval;
	}

	/**
	 * Records every lease expired by now, batch by batch (or until the service stops);
	 * returns how many this call recorded.
	 */
	public int reapExpired() {
		if (!this.running) {
			return 0;
		}
		int first = this.transactions.inTransaction(this::reapBatch);
		if (first < this.batchSize) {
			return first;
		}
		// A burst: the rest in parallel (an idle pass stays one short transaction).
		if (this.parallelism == 1) {
			return first + reapBatchAfterBatch();
		}
		try (ExecutorService transactions = Executors.newVirtualThreadPerTaskExecutor()) {
			List<Future<Integer>> parts = new ArrayList<>();
			for (int i = 0; i < this.parallelism; i++) {
				parts.add(transactions.submit(this::reapBatchAfterBatch));
			}
			int total = first;
			for (Future<Integer> part : parts) {
				total += recordedBy(part);
			}
			return total;
		}
	}

	private static int recordedBy(Future<Integer> part) {
		try {
			return part.get();
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException failure) {
				throw failure;
			}
			throw new IllegalStateException(ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while recording expiries", ex);
		}
	}

	private int reapBatchAfterBatch() {
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
		// An item a guard holds waits for a human, not for a time; the others back off.
		Set<UUID> held = new HashSet<>();
		deltas.stream()
			.filter((delta) -> delta.openAttentionRequests() > 0)
			.forEach((delta) -> held.add(delta.itemId()));
		// One request says enough: the no-progress guard looks only at items no other
		// guard held.
		List<BlockerDelta> stalled = this.progress.holdStalled(
				expired.stream().map(ExpiredLease::itemId).filter((itemId) -> !held.contains(itemId)).toList());
		stalled.forEach((delta) -> held.add(delta.itemId()));
		deltas.addAll(stalled);
		List<NotBefore> backoffs = new ArrayList<>();
		for (ExpiredLease lease : expired) {
			if (!held.contains(lease.itemId())) {
				RetryPolicy policy = RetryPolicy.of(lease.retry(), this.retryDefaults);
				backoffs.add(NotBefore.after(lease.itemId(),
						policy.backoff(lease.attempts(), ThreadLocalRandom.current().nextDouble())));
			}
		}
		this.readiness.adjustAfterExpiry(deltas, expired.stream().map(ExpiredLease::itemId).toList(), backoffs);
		this.metrics.ended(LeaseOutcome.EXPIRED, expired.size());
		return expired.size();
	}

	/**
	 * Promotes every scheduled item whose time has come by now (PostgreSQL's clock),
	 * batch by batch, each batch a transaction; returns how many this call promoted. Safe
	 * beside other instances' passes (see {@code Readiness.promoteDue}).
	 */
	public int promoteDue() {
		int total = 0;
		while (this.running) {
			int promoted = this.transactions.inTransaction(() -> this.readiness.promoteDue(this.batchSize));
			total += promoted;
			if (promoted < this.batchSize) {
				break;
			}
		}
		return total;
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
		if (!this.running) {
			return;
		}
		Duration next = this.interval;
		try {
			long started = System.nanoTime();
			int recorded = reapExpired();
			int promoted = promoteDue();
			next = min(this.expiredLeases.untilNextExpiry().map(this::nextPassIn).orElse(this.interval),
					this.readiness.untilNextDue().map(this::nextPassIn).orElse(this.interval));
			if (recorded > 0 || promoted > 0 || log.isTraceEnabled()) {
				log.debug("Recorded {} expired leases and promoted {} scheduled items in {} ms; next pass in {} ms",
						recorded, promoted, (System.nanoTime() - started) / 1_000_000, next.toMillis());
			}
		}
		catch (RuntimeException ex) {
			log.warn("Lease reaper pass failed, retrying next interval: {}", ex.getMessage());
		}
		this.nextPassIn = next;
	}

	/** How long after the end of the last pass the next one runs. */
	Duration nextPassIn() {
		return this.nextPassIn;
	}

	/** Just after the next expiry (or due time), but never later than the interval. */
	Duration nextPassIn(Duration untilNextExpiry) {
		if (untilNextExpiry.isNegative() || untilNextExpiry.isZero()) {
			return min(LOCKED_EXPIRY_RETRY, this.interval);
		}
		return min(untilNextExpiry.plus(AFTER_EXPIRY), this.interval);
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

}
