package dev.workgraph.item;

import java.util.concurrent.locks.Condition;

/**
 * A request waiting in {@link ReadyWaiters}; identity, not value, equality. Its state is
 * guarded by the waiters' lock.
 */
final class Waiter {

	final Condition wake;

	/** Whose wait it is, or null. */
	final Object owner;

	/** Guarded by the waiters' lock: it is this waiter's turn to check. */
	boolean signalled;

	Waiter(Condition wake, Object owner) {
		this.wake = wake;
		this.owner = owner;
	}

}
