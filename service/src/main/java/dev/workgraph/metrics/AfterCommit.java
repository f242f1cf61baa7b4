package dev.workgraph.metrics;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Counts what a transaction did only once it has committed: a transaction that rolls back
 * (a refused completion) or is retried after a deadlock must not count its work, or count
 * it twice.
 */
public final class AfterCommit {

	private AfterCommit() {
	}

	/** Runs the action after the current transaction commits, or now outside one. */
	public static void run(Runnable action) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			action.run();
			return;
		}
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCommit() {
				action.run();
			}

		});
	}

}
