package dev.workgraph.lease.ending;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.batching.PerRequest;
import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.Readiness;
import dev.workgraph.lease.Fencing;
import dev.workgraph.lease.LeaseMetrics;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.problem.Problems;
import dev.workgraph.problem.RequestRejected;
import dev.workgraph.sql.Transactions;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.LeaseView;

import org.springframework.stereotype.Service;

/**
 * Completions, releases and renewals, alone or many in one transaction (group commit, ADR
 * 0009). Many requests in one transaction cost one commit, i.e. one WAL flush, instead of
 * one each; every request is still fenced on its own by the guard in the statement that
 * writes, and answers what it would have answered alone: a stale lease gets its own 409
 * while the others commit.
 *
 * <p>
 * The together path is taken only where its outcome is certainly the one the requests
 * would have had one after the other: every lease named once, and no item under a current
 * lease waiting for children or dependencies (whose counters another request of the batch
 * might change). Otherwise, and whenever the together path fails for any reason but an
 * unreachable database (a constraint violation, a lock conflict), the batch is run again
 * one request per transaction, in request order, so a request that fails cannot fail the
 * others.
 */
@Service
class LeaseEndings {

	private final Transactions transactions;

	private final Fencing fencing;

	private final BatchFencing batchFencing;

	private final Readiness readiness;

	private final LeaseMetrics metrics;

	LeaseEndings(Transactions transactions, Fencing fencing, BatchFencing batchFencing, Readiness readiness,
			LeaseMetrics metrics) {
		this.transactions = transactions;
		this.fencing = fencing;
		this.batchFencing = batchFencing;
		this.readiness = readiness;
		this.metrics = metrics;
	}

	/**
	 * One completion in its own transaction: the item locked and the fenced completion
	 * (which reads the completed item's view too) in one round trip, then readiness of
	 * those waiting for it.
	 */
	Ended complete(Completing request) {
		return this.transactions.inTransaction(() -> {
			Fencing.Completion completion = this.fencing.complete(request.leaseId(), request.epoch(), request.result());
			if (!completion.completed()) {
				// Thrown inside the transaction: the lease deleted above is restored.
				UUID itemId = completion.lease().itemId();
				if (completion.openChildren() > 0) {
					throw new OpenChildrenRemain(itemId, completion.openChildren());
				}
				throw new UnmetDependenciesRemain(itemId, completion.unmetDependencies());
			}
			this.readiness.adjust(unblocked(completion));
			return new Ended(completion.lease(), completion.item());
		});
	}

	/**
	 * The completions, answered in request order (see the class comment); those completed
	 * together come with their items' views only {@code withItems}.
	 */
	List<PerRequest<Ended>> completeAll(List<Completing> requests, boolean withItems) {
		if (requests.size() > 1 && distinct(requests.stream().map(Completing::leaseId).toList())) {
			try {
				return this.transactions.inTransaction(() -> completeTogether(requests, withItems));
			}
			catch (RuntimeException ex) {
				if (Problems.isDatabaseUnavailable(ex)) {
					return requests.stream().map((request) -> PerRequest.<Ended>failed(ex)).toList();
				}
			}
		}
		return requests.stream().map((request) -> PerRequest.alone(() -> complete(request))).toList();
	}

	/**
	 * The completions in the caller's transaction, answered in request order: a lone one
	 * as {@link #complete} (its rejection thrown), several as {@link #completeAll}
	 * commits them together. Throws where they cannot be answered together with
	 * certainty; the caller then rolls back and runs them one by one.
	 */
	List<PerRequest<Ended>> completeHere(List<Completing> requests) {
		if (requests.size() == 1) {
			return List.of(PerRequest.done(complete(requests.getFirst())));
		}
		if (!distinct(requests.stream().map(Completing::leaseId).toList())) {
			throw new OneByOne();
		}
		return completeTogether(requests, true);
	}

	private List<PerRequest<Ended>> completeTogether(List<Completing> requests, boolean withItems) {
		List<UUID> leaseIds = requests.stream().map(Completing::leaseId).toList();
		long[] epochs = requests.stream().mapToLong(Completing::epoch).toArray();
		List<BatchFencing.Locked> locked = this.batchFencing.lockItems(leaseIds, epochs);
		List<PerRequest<Ended>> answers = new ArrayList<>(requests.size());
		List<Completing> going = new ArrayList<>();
		for (int i = 0; i < requests.size(); i++) {
			Completing request = requests.get(i);
			BatchFencing.Locked lease = locked.get(i);
			if (lease == null || !lease.current()) {
				answers.add(PerRequest.failed(rejection(request.leaseId(), request.epoch())));
				continue;
			}
			if (lease.item().openChildren() > 0 || lease.item().unmetDependencies() > 0) {
				throw new OneByOne();
			}
			answers.add(null);
			going.add(request);
		}
		if (going.isEmpty()) {
			return answers;
		}
		List<Fencing.Completion> completions = this.batchFencing.completeAll(
				going.stream().map(Completing::leaseId).toList(), going.stream().mapToLong(Completing::epoch).toArray(),
				going.stream().map(Completing::result).toList(), withItems);
		Map<UUID, Fencing.Completion> byLease = new HashMap<>();
		completions.forEach((completion) -> byLease.put(completion.lease().id(), completion));
		List<BlockerDelta> unblocked = new ArrayList<>();
		for (int i = 0; i < requests.size(); i++) {
			if (answers.get(i) != null) {
				continue;
			}
			Fencing.Completion completion = byLease.get(requests.get(i).leaseId());
			if (completion == null || !completion.completed()) {
				// The items are locked and were checked above, so this cannot happen;
				// should it, the requests run one by one and say what happened.
				throw new OneByOne();
			}
			unblocked.addAll(unblocked(completion));
			answers.set(i, PerRequest.done(new Ended(completion.lease(), completion.item())));
		}
		this.readiness.adjust(unblocked);
		// Single completions count in Fencing; these ran as one statement.
		this.metrics.ended(LeaseOutcome.COMPLETED, going.size());
		return answers;
	}

	/**
	 * One release in its own transaction: the item locked and the fenced ending in one
	 * round trip, then the item back to ready (or blocked).
	 */
	LeaseView release(Releasing request) {
		return this.transactions.inTransaction(() -> {
			LeaseView ended = this.fencing.lockAndEnd(request.leaseId(), request.epoch(), LeaseOutcome.RELEASED,
					request.reason());
			this.readiness.settleAfterLeaseEnded(List.of(ended.itemId()));
			return ended;
		});
	}

	/** The releases, answered in request order, as {@link #completeAll}. */
	List<PerRequest<LeaseView>> releaseAll(List<Releasing> requests) {
		if (requests.size() > 1 && distinct(requests.stream().map(Releasing::leaseId).toList())) {
			try {
				return this.transactions.inTransaction(() -> releaseTogether(requests));
			}
			catch (RuntimeException ex) {
				if (Problems.isDatabaseUnavailable(ex)) {
					return requests.stream().map((request) -> PerRequest.<LeaseView>failed(ex)).toList();
				}
			}
		}
		return requests.stream().map((request) -> PerRequest.alone(() -> release(request))).toList();
	}

	/**
	 * Releasing depends on nothing another request of the batch could change (each lease
	 * is of another item), so every current lease is released.
	 */
	private List<PerRequest<LeaseView>> releaseTogether(List<Releasing> requests) {
		List<UUID> leaseIds = requests.stream().map(Releasing::leaseId).toList();
		long[] epochs = requests.stream().mapToLong(Releasing::epoch).toArray();
		List<BatchFencing.Locked> locked = this.batchFencing.lockItems(leaseIds, epochs);
		List<PerRequest<LeaseView>> answers = new ArrayList<>(requests.size());
		List<Releasing> going = new ArrayList<>();
		for (int i = 0; i < requests.size(); i++) {
			Releasing request = requests.get(i);
			BatchFencing.Locked lease = locked.get(i);
			if (lease == null || !lease.current()) {
				answers.add(PerRequest.failed(rejection(request.leaseId(), request.epoch())));
				continue;
			}
			answers.add(null);
			going.add(request);
		}
		if (going.isEmpty()) {
			return answers;
		}
		Map<UUID, LeaseView> released = new HashMap<>();
		this.batchFencing.releaseAll(going.stream().map(Releasing::leaseId).toList(),
				going.stream().mapToLong(Releasing::epoch).toArray(), going.stream().map(Releasing::reason).toList())
			.forEach((lease) -> released.put(lease.id(), lease));
		List<UUID> items = new ArrayList<>();
		for (int i = 0; i < requests.size(); i++) {
			if (answers.get(i) != null) {
				continue;
			}
			LeaseView lease = released.get(requests.get(i).leaseId());
			if (lease == null) {
				throw new OneByOne();
			}
			items.add(lease.itemId());
			answers.set(i, PerRequest.done(lease));
		}
		this.readiness.settleAfterLeaseEnded(items);
		this.metrics.ended(LeaseOutcome.RELEASED, items.size());
		return answers;
	}

	/**
	 * One renewal: one fenced statement, committed on its own (a transaction around it
	 * would cost a round trip for its COMMIT and hold nothing the statement does not).
	 */
	LeaseView renew(Renewing request) {
		return this.transactions
			.retryingLockRaces(() -> this.fencing.renew(request.leaseId(), request.epoch(), request.leaseSeconds()));
	}

	/** The renewals, answered in request order, as {@link #completeAll}. */
	List<PerRequest<LeaseView>> renewAll(List<Renewing> requests) {
		if (requests.size() > 1 && distinct(requests.stream().map(Renewing::leaseId).toList())) {
			try {
				return this.transactions.inTransaction(() -> renewTogether(requests));
			}
			catch (RuntimeException ex) {
				if (Problems.isDatabaseUnavailable(ex)) {
					return requests.stream().map((request) -> PerRequest.<LeaseView>failed(ex)).toList();
				}
			}
		}
		return requests.stream().map((request) -> PerRequest.alone(() -> renew(request))).toList();
	}

	private List<PerRequest<LeaseView>> renewTogether(List<Renewing> requests) {
		Map<UUID, LeaseView> renewed = new HashMap<>();
		this.batchFencing
			.renewAll(requests.stream().map(Renewing::leaseId).toList(),
					requests.stream().mapToLong(Renewing::epoch).toArray(),
					requests.stream().mapToInt(Renewing::leaseSeconds).toArray())
			.forEach((lease) -> renewed.put(lease.id(), lease));
		return requests.stream().map((request) -> {
			LeaseView lease = renewed.get(request.leaseId());
			return (lease != null) ? PerRequest.done(lease)
					: PerRequest.<LeaseView>failed(rejection(request.leaseId(), request.epoch()));
		}).toList();
	}

	/**
	 * Why a request's guard matched nothing. A lease that changed while being classified
	 * (it cannot, under the locks taken, but should it) fails the whole transaction,
	 * which is retried.
	 */
	private RequestRejected rejection(UUID leaseId, long epoch) {
		RuntimeException rejection = this.fencing.rejection(leaseId, epoch);
		if (rejection instanceof RequestRejected rejected) {
			return rejected;
		}
		throw rejection;
	}

	private static List<BlockerDelta> unblocked(Fencing.Completion completion) {
		List<BlockerDelta> unblocked = new ArrayList<>();
		completion.dependents().forEach((dependent) -> unblocked.add(BlockerDelta.dependencies(dependent, -1)));
		if (completion.parentId() != null) {
			unblocked.add(BlockerDelta.children(completion.parentId(), -1));
		}
		return unblocked;
	}

	private static boolean distinct(List<UUID> leaseIds) {
		return new HashSet<>(leaseIds).size() == leaseIds.size();
	}

	/**
	 * An ended lease, with its item's view where the ending read it in the same statement
	 * (a completion alone), else null.
	 */
	record Ended(LeaseView lease, ItemView item) {
	}

	/** A completion request: the lease, the presented epoch, the result as JSON text. */
	record Completing(UUID leaseId, long epoch, String result) {
	}

	/** A release request: the lease, the presented epoch, the reason (or null). */
	record Releasing(UUID leaseId, long epoch, String reason) {
	}

	/** A renewal request: the lease, the presented epoch, the new length. */
	record Renewing(UUID leaseId, long epoch, int leaseSeconds) {
	}

	/**
	 * The batch cannot be answered together with certainty: roll it back and run it one
	 * request per transaction.
	 */
	private static final class OneByOne extends RuntimeException {

		OneByOne() {
			super("run one by one", null, false, false);
		}

	}

}
