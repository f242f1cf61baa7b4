package dev.workgraph.chaos;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.chaos.History.Violation;
import dev.workgraph.chaos.ServerHistory.LeaseRow;
import dev.workgraph.chaos.StreamSubscriber.Ended;

/**
 * The change stream as a subscriber saw it through the faults, against the database's
 * lease history: invariant {@code 8-stream-exactly-once}, "every committed lease ending
 * appears in the stream exactly once, in commit order per item, and no event describes an
 * uncommitted change".
 */
final class StreamChecker {

	static final String INVARIANT = "8-stream-exactly-once";

	private StreamChecker() {
	}

	/**
	 * @param received the events in the order the subscriber received them
	 * @param leases every lease, ended or active, as the database has them
	 */
	static List<Violation> check(List<Ended> received, List<LeaseRow> leases) {
		List<Violation> violations = new ArrayList<>();
		long previous = Long.MIN_VALUE;
		Map<UUID, Ended> byLease = new HashMap<>();
		Map<UUID, Ended> lastOfItem = new HashMap<>();
		for (Ended event : received) {
			if (event.seq() <= previous) {
				violations.add(new Violation(INVARIANT,
						"seq " + event.seq() + " arrived after seq " + previous + ": repeated or out of order"));
			}
			previous = Math.max(previous, event.seq());
			Ended earlier = byLease.put(event.leaseId(), event);
			if (earlier != null) {
				violations.add(new Violation(INVARIANT, "lease " + event.leaseId() + " ended twice in the stream (seq "
						+ earlier.seq() + " and " + event.seq() + ")"));
			}
			// One item's leases end one after the other, each with a higher epoch: the
			// stream must show them in that (commit) order.
			Ended before = lastOfItem.put(event.itemId(), event);
			if (before != null && before.epoch() >= event.epoch()) {
				violations.add(new Violation(INVARIANT,
						"item " + event.itemId() + ": the ending of epoch " + event.epoch() + " (seq " + event.seq()
								+ ") came after that of epoch " + before.epoch() + " (seq " + before.seq() + ")"));
			}
		}
		Map<UUID, LeaseRow> ended = new HashMap<>();
		for (LeaseRow lease : leases) {
			if (!lease.active()) {
				ended.put(lease.leaseId(), lease);
			}
		}
		for (Ended event : received) {
			LeaseRow lease = ended.get(event.leaseId());
			if (lease == null) {
				violations.add(new Violation(INVARIANT, "seq " + event.seq() + " says lease " + event.leaseId()
						+ " ended, but no committed lease ending has that id"));
			}
			else if (!lease.itemId().equals(event.itemId()) || lease.epoch() != event.epoch()
					|| !lease.outcome().equals(event.outcome())) {
				violations.add(new Violation(INVARIANT,
						"seq " + event.seq() + " describes lease " + event.leaseId() + " as " + event.outcome()
								+ " at epoch " + event.epoch() + "; the database has " + lease.outcome() + " at epoch "
								+ lease.epoch()));
			}
		}
		for (LeaseRow lease : ended.values()) {
			if (!byLease.containsKey(lease.leaseId())) {
				violations.add(new Violation(INVARIANT, "lease " + lease.leaseId() + " of item " + lease.itemId()
						+ " ended (" + lease.outcome() + ") but never appeared in the stream"));
			}
		}
		return violations;
	}

}
