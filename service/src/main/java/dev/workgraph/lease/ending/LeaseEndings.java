package dev.workgraph.lease.ending;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.workgraph.batching.PerRequest;
import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.LockedItem;
import dev.workgraph.item.NotBefore;
import dev.workgraph.item.Readiness;
import dev.workgraph.lease.Fencing;
import dev.workgraph.lease.LeaseMetrics;
import dev.workgraph.lease.ProgressGuard;
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

	private final ProgressGuard progress;

	LeaseEndings(Transactions transactions, Fencing fencing, BatchFencing batchFencing, Readiness readiness,
			LeaseMetrics metrics, ProgressGuard progress) {
		this.progress = progress;
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
		return togetherElseOneByOne(requests, () -> completeTogether(requests, withItems), this::complete);
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
		if (!distinct(requests)) {
			throw new OneByOne();
		}
		return completeTogether(requests, true);
	}

	private List<PerRequest<Ended>> completeTogether(List<Completing> requests, boolean withItems) {
		// An item waiting for children or dependencies waits on counters that another
		// request of the batch might change: one by one, in request order.
		List<PerRequest<Ended>> answers = lockAndReject(requests,
				(item) -> item.openChildren() == 0 && item.unmetDependencies() == 0);
		List<Completing> going = going(requests, answers);
		if (going.isEmpty()) {
			return answers;
		}
		List<Fencing.Completion> completions = this.batchFencing.completeAll(
				going.stream().map(Completing::leaseId).toList(), going.stream().mapToLong(Completing::epoch).toArray(),
				going.stream().map(Completing::result).toList(), withItems);
		List<BlockerDelta> unblocked = new ArrayList<>();
		answerGoing(requests, answers, completions.stream().filter(Fencing.Completion::completed).toList(),
				(completion) -> completion.lease().id(), (completion) -> {
					unblocked.addAll(unblocked(completion));
					return new Ended(completion.lease(), completion.item());
				});
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
			List<BlockerDelta> held = this.progress.holdStalled(List.of(ended.itemId()));
			this.readiness.settleAfterLeaseEnded(held, List.of(ended.itemId()),
					held.isEmpty() ? request.schedule(ended.itemId()) : List.of());
			return ended;
		});
	}

	/** The releases, answered in request order, as {@link #completeAll}. */
	List<PerRequest<LeaseView>> releaseAll(List<Releasing> requests) {
		return togetherElseOneByOne(requests, () -> releaseTogether(requests), this::release);
	}

	/**
	 * Releasing depends on nothing another request of the batch could change (each lease
	 * is of another item), so every current lease is released.
	 */
	private List<PerRequest<LeaseView>> releaseTogether(List<Releasing> requests) {
		List<PerRequest<LeaseView>> answers = lockAndReject(requests, (item) -> true);
		List<Releasing> going = going(requests, answers);
		if (going.isEmpty()) {
			return answers;
		}
		List<LeaseView> released = this.batchFencing.releaseAll(going.stream().map(Releasing::leaseId).toList(),
				going.stream().mapToLong(Releasing::epoch).toArray(), going.stream().map(Releasing::reason).toList());
		List<UUID> items = new ArrayList<>();
		List<NotBefore> schedules = new ArrayList<>();
		Map<UUID, Releasing> byLease = new HashMap<>();
		going.forEach((request) -> byLease.put(request.leaseId(), request));
		answerGoing(requests, answers, released, LeaseView::id, (lease) -> {
			items.add(lease.itemId());
			schedules.addAll(byLease.get(lease.id()).schedule(lease.itemId()));
			return lease;
		});
		// A held item waits for a human, not for a time.
		List<BlockerDelta> held = this.progress.holdStalled(items);
		Set<UUID> heldItems = new HashSet<>();
		held.forEach((delta) -> heldItems.add(delta.itemId()));
		schedules.removeIf((schedule) -> heldItems.contains(schedule.itemId()));
		this.readiness.settleAfterLeaseEnded(held, items, schedules);
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
		return togetherElseOneByOne(requests, () -> renewTogether(requests), this::renew);
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
	 * The requests together in one transaction, answered in request order, where their
	 * outcome is certainly the one they would have had one after the other (see the class
	 * comment); otherwise, and when that transaction fails for any reason but an
	 * unreachable database, each {@code alone} in a transaction of its own.
	 */
	private <Q extends LeaseRequest, T> List<PerRequest<T>> togetherElseOneByOne(List<Q> requests,
			Supplier<List<PerRequest<T>>> together, Function<Q, T> alone) {
		if (requests.size() > 1 && distinct(requests)) {
			try {
				return this.transactions.inTransaction(together);
			}
			catch (RuntimeException ex) {
				if (Problems.isDatabaseUnavailable(ex)) {
					return requests.stream().map((request) -> PerRequest.<T>failed(ex)).toList();
				}
			}
		}
		return requests.stream().map((request) -> PerRequest.alone(() -> alone.apply(request))).toList();
	}

	/**
	 * Locks the requests' items in one statement and answers each request whose lease is
	 * not current with its rejection; the others are left null, for the statement that
	 * ends their leases. Throws {@link OneByOne} where a locked item cannot go ahead
	 * together with {@code certain}ty.
	 */
	private <Q extends LeaseRequest, T> List<PerRequest<T>> lockAndReject(List<Q> requests,
			Predicate<LockedItem> certain) {
		List<BatchFencing.Locked> locked = this.batchFencing.lockItems(
				requests.stream().map(LeaseRequest::leaseId).toList(),
				requests.stream().mapToLong(LeaseRequest::epoch).toArray());
		List<PerRequest<T>> answers = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			Q request = requests.get(i);
			BatchFencing.Locked lease = locked.get(i);
			if (lease == null || !lease.current()) {
				answers.add(PerRequest.failed(rejection(request.leaseId(), request.epoch())));
			}
			else if (!certain.test(lease.item())) {
				throw new OneByOne();
			}
			else {
				answers.add(null);
			}
		}
		return answers;
	}

	/** The requests {@link #lockAndReject} left unanswered, in request order. */
	private static <Q, T> List<Q> going(List<Q> requests, List<PerRequest<T>> answers) {
		List<Q> going = new ArrayList<>();
		for (int i = 0; i < requests.size(); i++) {
			if (answers.get(i) == null) {
				going.add(requests.get(i));
			}
		}
		return going;
	}

	/**
	 * Answers every request left unanswered with what the statement that ended its lease
	 * returned for it. The items are locked and their leases were current, so each has
	 * its row; should one not, the requests run one by one and say what happened.
	 */
	private static <Q extends LeaseRequest, E, T> void answerGoing(List<Q> requests, List<PerRequest<T>> answers,
			List<E> ended, Function<E, UUID> leaseId, Function<E, T> answer) {
		Map<UUID, E> byLease = new HashMap<>();
		ended.forEach((row) -> byLease.put(leaseId.apply(row), row));
		for (int i = 0; i < requests.size(); i++) {
			if (answers.get(i) != null) {
				continue;
			}
			E row = byLease.get(requests.get(i).leaseId());
			if (row == null) {
				throw new OneByOne();
			}
			answers.set(i, PerRequest.done(answer.apply(row)));
		}
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

	private static boolean distinct(List<? extends LeaseRequest> requests) {
		return requests.stream().map(LeaseRequest::leaseId).distinct().count() == requests.size();
	}

	/**
	 * An ended lease, with its item's view where the ending read it in the same statement
	 * (a completion alone), else null.
	 */
	record Ended(LeaseView lease, ItemView item) {
	}

	/** A request under a lease: the lease and the presented epoch. */
	sealed interface LeaseRequest permits Completing, Releasing, Renewing {

		UUID leaseId();

		long epoch();

	}

	/** A completion request: the lease, the presented epoch, the result as JSON text. */
	record Completing(UUID leaseId, long epoch, String result) implements LeaseRequest {
	}

	/**
	 * A release request: the lease, the presented epoch, the reason (or null), how long
	 * the item waits before it may be claimed again (or null).
	 */
	record Releasing(UUID leaseId, long epoch, String reason, Duration retryAfter) implements LeaseRequest {

		/** The item's new notBefore, if the release asks for one. */
		List<NotBefore> schedule(UUID itemId) {
			return (this.retryAfter != null) ? List.of(NotBefore.after(itemId, this.retryAfter)) : List.of();
		}

	}

	/** A renewal request: the lease, the presented epoch, the new length. */
	record Renewing(UUID leaseId, long epoch, int leaseSeconds) implements LeaseRequest {
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
