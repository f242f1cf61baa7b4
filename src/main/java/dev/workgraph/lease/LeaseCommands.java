package dev.workgraph.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.Cancellation;
import dev.workgraph.item.LockedItem;
import dev.workgraph.item.Readiness;
import dev.workgraph.support.InvalidRequest;
import dev.workgraph.support.Json;
import dev.workgraph.support.Transactions;
import dev.workgraph.support.Uuid7;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseView;
import dev.workgraph.view.LeaseViews;
import tools.jackson.databind.JsonNode;

import org.springframework.stereotype.Service;

/**
 * What a worker does with a lease: claim, renew, complete, release, cancel. Every
 * mutation after the claim is fenced by {@link Fencing}; every multi-step change is one
 * transaction, so a rejected call writes nothing.
 */
@Service
public class LeaseCommands {

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

	LeaseCommands(Transactions transactions, Claims claims, Fencing fencing, Readiness readiness,
			Cancellation cancellation, ItemViews items, LeaseViews leases, LeaseProperties properties,
			ContinuityProperties continuity) {
		this.transactions = transactions;
		this.claims = claims;
		this.fencing = fencing;
		this.readiness = readiness;
		this.cancellation = cancellation;
		this.items = items;
		this.leases = leases;
		this.properties = properties;
		this.continuity = continuity;
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
	Optional<LeaseAndItem> claim(String workerId, List<String> queues, Integer leaseSeconds) {
		int seconds = leaseSeconds(leaseSeconds);
		Optional<Claims.Claimed> claimed = claimOnce(workerId, queues, seconds);
		for (int retry = 0; claimed.isEmpty() && retry < EMPTY_CLAIM_RETRIES && this.claims.anyReady(queues); retry++) {
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(EMPTY_CLAIM_BACKOFF_NANOS << retry));
			claimed = claimOnce(workerId, queues, seconds);
		}
		return claimed
			.map((lease) -> new LeaseAndItem(lease.lease(), this.items.assemble(List.of(lease.item())).getFirst()));
	}

	private Optional<Claims.Claimed> claimOnce(String workerId, List<String> queues, int seconds) {
		return this.claims.claimNextReady(Uuid7.next(), workerId, queues, seconds, this.continuity.continuityWindow());
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

}
