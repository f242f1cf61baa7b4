package dev.workgraph.client.worker;

import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

import dev.workgraph.client.WorkGraphClient;

/** What every lease of one worker shares. */
record Settings(WorkGraphClient client, String workerId, Integer leaseSeconds, Backoff retryBackoff,
		ScheduledExecutorService scheduler, WorkerListener listener, LongSupplier nanoTime, RandomGenerator random) {

	static final System.Logger LOG = System.getLogger("dev.workgraph.client.worker");

	long now() {
		return this.nanoTime.getAsLong();
	}

	/** Runs a listener callback; what it throws is logged, never propagated. */
	void tell(Runnable callback) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			LOG.log(System.Logger.Level.WARNING, "A WorkerListener threw; ignored", ex);
		}
	}

}
