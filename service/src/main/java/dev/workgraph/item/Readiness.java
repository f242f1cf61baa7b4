package dev.workgraph.item;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.springframework.stereotype.Component;

/**
 * The one place where an item's status follows from its blockers. Every change that can
 * block or unblock items (an edge added or removed, a child created or closed, a
 * dependency completed, an attention request opened or resolved, a wait registered or
 * ended, a lease ended) goes through {@link #adjust}, in the same transaction as the
 * change.
 *
 * <p>
 * The predicate (docs/http-api.md, "Statuses and readiness"): an item that is neither
 * terminal nor leased is {@code ready} exactly when all its counters are zero, else
 * {@code blocked}. A {@code leased} item stays leased (blockers added during a lease
 * count when it ends) unless the caller says it has just ended the item's lease. Moving
 * into {@code ready} stamps a fresh {@code readySince} and enqueues the item for
 * claiming; moving out dequeues it.
 */
@Component
public class Readiness {

	private final BlockerCounters counters;

	private final Items items;

	Readiness(BlockerCounters counters, Items items) {
		this.counters = counters;
		this.items = items;
	}

	/**
	 * Applies the counter changes and settles each touched item's status. An item may
	 * appear several times; its deltas add up.
	 */
	public void adjust(Collection<BlockerDelta> deltas) {
		adjust(deltas, List.of());
	}

	public void adjust(BlockerDelta... deltas) {
		adjust(List.of(deltas));
	}

	/**
	 * Like {@link #adjust(Collection)}, for a caller that has also just ended the leases
	 * of {@code leaseEnded} (deleted their {@code leases} rows): those items settle to
	 * ready or blocked. They need not appear in {@code changes}.
	 */
	public void adjust(Collection<BlockerDelta> changes, Collection<UUID> leaseEnded) {
		adjust(changes, leaseEnded, false, List.of());
	}

	/**
	 * Like {@link #adjust(Collection, Collection)} for the reaper: the leases of
	 * {@code expired} ended by expiring, which also counts towards each item's
	 * consecutive expirations; {@code backoffs} schedule the items to be retried later.
	 */
	public void adjustAfterExpiry(Collection<BlockerDelta> changes, Collection<UUID> expired,
			Collection<NotBefore> backoffs) {
		adjust(changes, expired, true, backoffs);
	}

	private void adjust(Collection<BlockerDelta> changes, Collection<UUID> leaseEnded, boolean expiring,
			Collection<NotBefore> schedules) {
		List<BlockerDelta> deltas = new ArrayList<>(changes);
		leaseEnded.forEach((itemId) -> deltas.add(BlockerDelta.none(itemId)));
		schedules.forEach((schedule) -> deltas.add(BlockerDelta.none(schedule.itemId())));
		if (!deltas.isEmpty()) {
			this.counters.adjust(deltas, leaseEnded, expiring, schedules);
		}
	}

	/** Settles items whose leases the caller has just ended: ready or blocked. */
	public void settleAfterLeaseEnded(Collection<UUID> itemIds) {
		adjust(List.of(), itemIds);
	}

	/**
	 * Settles items whose leases the caller has just ended, those of {@code schedules}
	 * with a new notBefore (a back-off, a release's delay): ready, or blocked until then.
	 */
	public void settleAfterLeaseEnded(Collection<UUID> itemIds, Collection<NotBefore> schedules) {
		adjust(List.of(), itemIds, false, schedules);
	}

	/**
	 * Settles items whose leases the caller has just ended, with the blocker
	 * {@code changes} that their endings made (a guard's hold) and the new notBefore of
	 * {@code schedules}.
	 */
	public void settleAfterLeaseEnded(Collection<BlockerDelta> changes, Collection<UUID> itemIds,
			Collection<NotBefore> schedules) {
		adjust(changes, itemIds, false, schedules);
	}

	/**
	 * Sets the notBefore of an item that is neither leased nor terminal (locked by the
	 * caller): blocked until then, or settled at once when it is null or has come.
	 */
	public void reschedule(NotBefore schedule) {
		adjust(List.of(), List.of(), false, List.of(schedule));
	}

	/**
	 * Promotes at most {@code batchSize} scheduled items whose time has come, in one
	 * transaction of the caller's; returns how many.
	 */
	public int promoteDue(int batchSize) {
		return this.counters.promoteDue(batchSize);
	}

	/** How long until the next scheduled item is due, if any (negative: overdue). */
	public Optional<Duration> untilNextDue() {
		return this.counters.untilNextDue();
	}

	/**
	 * Locks an item before the caller changes rows that its counters follow from (such as
	 * an attention request): everywhere, the item's row is locked before any other.
	 * Throws {@link ItemNotFound} when it does not exist.
	 */
	public LockedItem lockItem(UUID itemId) {
		return this.items.lockExisting(itemId);
	}

	/**
	 * Locks the items that exist among {@code itemIds}, in id order (the order of every
	 * statement that locks several items), before the caller changes rows their counters
	 * follow from.
	 */
	public void lockItems(Collection<UUID> itemIds) {
		this.items.lock(itemIds);
	}

}
