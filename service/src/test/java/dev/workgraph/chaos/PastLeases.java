package dev.workgraph.chaos;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * The last leases a simulated worker let go, each with the moment it was surely dead:
 * what it replays stale writes on.
 */
final class PastLeases {

	private static final int KEPT = 12;

	private final Deque<Past> past = new ArrayDeque<>();

	void remember(Held lease, long deadAfterNanos) {
		this.past.addLast(new Past(lease.leaseId, lease.itemId, lease.epoch, deadAfterNanos));
		if (this.past.size() > KEPT) {
			this.past.removeFirst();
		}
	}

	boolean isEmpty() {
		return this.past.isEmpty();
	}

	/** One of them at random; there must be one. */
	Past any(Random random) {
		return List.copyOf(this.past).get(random.nextInt(this.past.size()));
	}

	record Past(UUID leaseId, UUID itemId, long epoch, long deadAfterNanos) {

		boolean surelyDead() {
			return System.nanoTime() > this.deadAfterNanos;
		}

	}

}
