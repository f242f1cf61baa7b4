package dev.workgraph.lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import dev.workgraph.input.Json;
import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.Cancellation;
import dev.workgraph.item.LockedItem;
import dev.workgraph.item.Readiness;
import dev.workgraph.item.ReadyWaiters;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.model.LeaseView;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.support.Transactions;
import dev.workgraph.support.Uuid7;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseViews;
import tools.jackson.databind.JsonNode;

import org.springframework.stereotype.Service;

/**
 * What a worker does with a lease: claim, renew, complete, release, cancel. Every
 * mutation after the claim is fenced by {@link Fencing}; every multi-step change is one
 * transaction, so a rejected call writes nothing.
 */
@Service
class LeaseCommands {

	/** Up to about 250 ms of backoff in all (doubling from 1 ms). */
	private static final int EMPTY_CLAIM_RETRIES = 8;

	private static final long EMPTY_CLAIM_BACKOFF_NANOS = 1_000_000L;

	private final Transactions transactions;

	private final Claims claims;

	private final Fencing fencing;

	private final Readiness readiness;

	private final Cancellation cancellation;

	private final ItemViews items;

	private final LeaseViews leases;

	private final LeaseProperties properties;

	private final ContinuityProperties continuity;

	private final ReadyWaiters waiters;

	/** Null when coalescing is off. */
	private final Coalescer<QueueFilter, Claims.Ask, Optional<Claims.Claimed>, Optional<LeaseAndItem>> coalescer;

	LeaseCommands(Transactions transactions, Claims claims, Fencing fencing, Readiness readiness,
			Cancellation cancellation, ItemViews items, LeaseViews leases, LeaseProperties properties,
			ContinuityProperties continuity, CoalescingProperties coalescing, ReadyWaiters waiters) {
		this.transactions = transactions;
		this.claims = claims;
		this.fencing = fencing;
		this.readiness = readiness;
		this.cancellation = cancellation;
		this.items = items;
		this.leases = leases;
		this.properties = properties;
		this.continuity = continuity;
		this.waiters = waiters;
		this.coalescer = coalescing.enabled() ? new Coalescer<>(this::claimBatch, this::withViews,
				coalescing.maxBatch(), coalescing.maxInFlight(), coalescing.maxWait()) : null;
	}

	/** The claim without waiting: 204 when nothing is ready. */
	Optional<LeaseAndItem> claim(String workerId, List<String> queues, Integer leaseSeconds) {
		return claim(workerId, queues, leaseSeconds, 0);
	}

	/**
	 * The claim, waiting up to {@code waitSeconds} for an item to become ready when none
	 * is (docs/adr/0008). The wait holds no database connection; the waiters of the same
	 * queues claim in arrival order.
	 */
	Optional<LeaseAndItem> claim(String workerId, List<String> queues, Integer leaseSeconds, int waitSeconds) {
		int seconds = leaseSeconds(leaseSeconds);
		QueueFilter filter = QueueFilter.of(queues);
		if (waitSeconds > 0) {
			return this.waiters.awaitReady(filter.queues(), Duration.ofSeconds(waitSeconds),
					() -> claimNow(workerId, filter, seconds));
		}
		return claimNow(workerId, filter, seconds);
	}

	/**
	 * One statement, so one implicit transaction: no BEGIN/COMMIT round trips on the
	 * hottest path.
	 *
	 * <p>
	 * The statement locks every candidate it looks at (the best item of each requested
	 * queue and the item preferred for this worker) but takes only one of them, so a
	 * concurrent claim that skips them all can come back empty while an item it could
	 * have had stays ready. 204 must mean that nothing is ready, so an empty claim is
	 * retried, after a short backoff, as long as ready items are still visible: they
	 * belong to a claim in flight, which takes one and releases the rest within
	 * milliseconds.
	 */
	private Optional<LeaseAndItem> claimNow(String workerId, QueueFilter filter, int seconds) {
		Optional<LeaseAndItem> claimed = claimOnce(workerId, filter, seconds);
		for (int retry = 0; claimed.isEmpty() && retry < EMPTY_CLAIM_RETRIES
				&& this.claims.anyReady(filter.queues()); retry++) {
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(EMPTY_CLAIM_BACKOFF_NANOS << retry));
			claimed = claimOnce(workerId, filter, seconds);
		}
		return claimed;
	}

	/**
	 * Claims concurrent with this one (same queues filter) are served by one batch
	 * (docs/adr/0005); each still gets its own lease. An ask the batch had no item for
	 * comes back empty, and the retry above treats it like any other empty claim.
	 */
	private Optional<LeaseAndItem> claimOnce(String workerId, QueueFilter filter, int seconds) {
		Claims.Ask ask = new Claims.Ask(Uuid7.next(), workerId, seconds);
		if (this.coalescer != null) {
			return this.coalescer.submit(filter, ask);
		}
		return withViews(filter, claimBatch(filter, List.of(ask))).getFirst();
	}

	/**
	 * A lone claim is the one-statement claim; several are one transaction of two
	 * statements.
	 */
	private List<Optional<Claims.Claimed>> claimBatch(QueueFilter filter, List<Claims.Ask> asks) {
		if (asks.size() == 1) {
			Claims.Ask ask = asks.getFirst();
			return List.of(this.claims.claimNextReady(ask.leaseId(), ask.workerId(), filter.queues(),
					ask.leaseSeconds(), this.continuity.continuityWindow()));
		}
		return this.transactions
			.inTransaction(() -> this.claims.claimBatch(asks, filter.queues(), this.continuity.continuityWindow()));
	}

	/** The item views of a batch's claims, read together after the claims committed. */
	private List<Optional<LeaseAndItem>> withViews(QueueFilter filter, List<Optional<Claims.Claimed>> claimed) {
		List<ItemView> views = this.items
			.assemble(claimed.stream().flatMap(Optional::stream).map(Claims.Claimed::item).toList());
		List<Optional<LeaseAndItem>> answers = new ArrayList<>(claimed.size());
		int next = 0;
		for (Optional<Claims.Claimed> claim : claimed) {
			if (claim.isPresent()) {
				answers.add(Optional.of(new LeaseAndItem(claim.get().lease(), views.get(next++))));
			}
			else {
				answers.add(Optional.empty());
			}
		}
		return answers;
	}

	LeaseView renew(UUID leaseId, long epoch, Integer leaseSeconds) {
		int seconds = leaseSeconds(leaseSeconds);
		return this.transactions.inTransaction(() -> this.fencing.renew(leaseId, epoch, seconds));
	}

	LeaseAndItem complete(UUID leaseId, long epoch, JsonNode result) {
		LeaseView lease = this.transactions.inTransaction(() -> {
			LockedItem item = this.fencing.lockItem(leaseId, epoch);
			Fencing.Completion completion = this.fencing.complete(leaseId, epoch, Json.textOrNull(result));
			if (!completion.completed()) {
				// Thrown inside the transaction: the lease deleted above is restored.
				if (completion.openChildren() > 0) {
					throw new OpenChildrenRemain(item.id(), completion.openChildren());
				}
				throw new UnmetDependenciesRemain(item.id(), completion.unmetDependencies());
			}
			List<BlockerDelta> unblocked = new ArrayList<>();
			completion.dependents().forEach((dependent) -> unblocked.add(BlockerDelta.dependencies(dependent, -1)));
			if (completion.parentId() != null) {
				unblocked.add(BlockerDelta.children(completion.parentId(), -1));
			}
			this.readiness.adjust(unblocked);
			return completion.lease();
		});
		return withItem(lease);
	}

	LeaseAndItem release(UUID leaseId, long epoch, String reason) {
		LeaseView lease = this.transactions.inTransaction(() -> {
			LockedItem item = this.fencing.lockItem(leaseId, epoch);
			LeaseView ended = this.fencing.end(leaseId, epoch, LeaseOutcome.RELEASED, reason);
			this.readiness.settleAfterLeaseEnded(List.of(item.id()));
			return ended;
		});
		return withItem(lease);
	}

	LeaseAndItem cancel(UUID leaseId, long epoch, String reason) {
		LeaseView lease = this.transactions.inTransaction(() -> {
			LockedItem item = this.fencing.lockItem(leaseId, epoch);
			LeaseView ended = this.fencing.end(leaseId, epoch, LeaseOutcome.CANCELLED, reason);
			this.cancellation.cancelSubtree(item.id(), reason);
			return ended;
		});
		return withItem(lease);
	}

	LeaseView lease(UUID leaseId) {
		return this.leases.find(leaseId).orElseThrow(() -> new LeaseNotFound(leaseId));
	}

	LeaseAndItem withItem(LeaseView lease) {
		return new LeaseAndItem(lease, item(lease.itemId()));
	}

	ItemView item(UUID itemId) {
		return this.items.find(itemId).orElseThrow();
	}

	private int leaseSeconds(Integer requested) {
		if (requested == null) {
			return this.properties.defaultSeconds();
		}
		if (requested < 1 || requested > this.properties.maxSeconds()) {
			throw new InvalidRequest("leaseSeconds", "must be between 1 and " + this.properties.maxSeconds());
		}
		return requested;
	}

	/**
	 * A lease with the item it is (or was) for, as the claim and lease-ending endpoints
	 * answer.
	 */
	record LeaseAndItem(LeaseView lease, ItemView item) {
	}

	/**
	 * The queues a claim may take from (null: all), as a set: claims coalesce when their
	 * filters are equal.
	 */
	record QueueFilter(List<String> queues) {

		static QueueFilter of(List<String> queues) {
			return new QueueFilter((queues != null) ? queues.stream().distinct().sorted().toList() : null);
		}

	}

}
