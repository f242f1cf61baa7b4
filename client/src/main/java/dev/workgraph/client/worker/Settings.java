package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.problem.RequestRejected;
import dev.workgraph.client.problem.WorkGraphException;

/**
 * What every lease of one worker shares.
 *
 * @param client for reads, and for handlers
 * @param transport for claims, renewals and lease writes
 * @param tokenRefused told when the service refuses the worker's token: the worker stops
 */
record Settings(WorkGraphClient client, Transport transport, String workerId, Integer leaseSeconds,
		Backoff retryBackoff, ScheduledExecutorService scheduler, WorkerListener listener, LongSupplier nanoTime,
		RandomGenerator random, Consumer<RequestRejected> tokenRefused) {

	static final System.Logger LOG = System.getLogger("dev.workgraph.client.worker");

	/** The worker's name in logs. */
	String workerName() {
		return (this.workerId != null) ? this.workerId : "(the token's worker)";
	}

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

	/** The transport, its requests bounded to end within this time (1 ms at least). */
	Transport transportWithin(long nanos) {
		return this.transport.within(Duration.ofNanos(Math.max(nanos, 1_000_000)));
	}

	/**
	 * How long to wait before retry number {@code attempt} after this failure, honouring
	 * the service's {@code Retry-After}.
	 */
	Duration retryDelay(int attempt, WorkGraphException failure) {
		Duration retryAfter = (failure instanceof RequestRejected rejected) ? rejected.retryAfter().orElse(null) : null;
		return this.retryBackoff.delay(attempt, retryAfter, this.random);
	}

}
