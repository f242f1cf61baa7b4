package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

import dev.workgraph.client.WorkGraphClient;

/**
 * Runs a handler for every item it claims, up to {@code concurrency} at a time, and takes
 * care of everything else an agent would otherwise write by hand:
 *
 * <ul>
 * <li>claims with a long poll ({@code waitSeconds}, 30 by default), so an idle worker
 * sends one request per wait instead of polling; against a service that predates waiting
 * it polls with back-off;
 * <li>backs off with full jitter on 503, 429 and connection failures, honouring
 * {@code Retry-After};
 * <li>renews each lease every third of its length, measured by elapsed monotonic time
 * (never by comparing {@code expiresAt} with the local clock), retrying failed renewals
 * within the time the lease has left;
 * <li>the moment a renewal is refused ({@code lease_expired}, {@code lease_ended},
 * {@code epoch_mismatch}, {@code not_found}), or renewals failed for a whole lease
 * length, tells the handler ({@link LeaseContext#isLost()},
 * {@link LeaseContext#whenLost()}, an interrupt) and never sends another write for that
 * lease;
 * <li>completes the item with the handler's return value, claiming the handler slot's
 * next item in the same request ({@code claimNext}); applies the {@link FailurePolicy}
 * when it throws;
 * <li>stops gracefully: stops claiming (calling off a waiting claim), lets handlers
 * finish within a grace period, then interrupts them and releases their leases;
 * <li>stops by itself when the service refuses its token (401, 403), which no wait would
 * change, saying why once; {@link #run()} then throws {@link TokenRefused}.
 * </ul>
 *
 * <pre>{@code
 * Worker worker = Worker.builder(client)
 *     .workerId("summariser-1")
 *     .queues("writing")
 *     .concurrency(4)
 *     .leaseSeconds(60)
 *     .handler((lease) -> Map.of("summary", summarise(lease.item())))
 *     .build();
 * worker.start();
 * Runtime.getRuntime().addShutdownHook(new Thread(worker::close));
 * }</pre>
 */
public final class Worker implements AutoCloseable {

	private final WorkerRuntime runtime;

	private Worker(Builder builder) {
		this.runtime = new WorkerRuntime(builder);
	}

	public static Builder builder(WorkGraphClient client) {
		return new Builder(client);
	}

	/** Starts claiming. A worker starts once; make a new one to start again. */
	public Worker start() {
		this.runtime.start();
		return this;
	}

	/**
	 * Starts the worker and returns once it has stopped: by {@link #stop()} (from a
	 * shutdown hook, say), or by itself. An interrupt of the calling thread stops it.
	 * @throws TokenRefused if it stopped because the service refused its token, so that
	 * the program can exit with an error
	 */
	public void run() {
		start();
		try {
			this.runtime.stopped().get();
		}
		catch (InterruptedException ex) {
			stop();
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException ex) {
			throw ((TokenRefused) ex.getCause()).rethrown();
		}
	}

	/**
	 * Completes once the worker has stopped: normally after {@link #stop()}; with
	 * {@link TokenRefused} when the service refused the worker's token, and the worker
	 * stopped by itself.
	 */
	public CompletableFuture<Void> whenStopped() {
		return this.runtime.stopped().copy();
	}

	/** Stops with the grace period given to the builder (30 s by default). */
	public void stop() {
		this.runtime.stop();
	}

	/**
	 * Stops claiming (a waiting claim is called off), waits up to {@code grace} for the
	 * handlers to finish, then interrupts those still running and releases their leases
	 * (reason "worker shutting down"). Returns when everything is stopped. Safe to call
	 * more than once, from any thread.
	 */
	public void stop(Duration grace) {
		this.runtime.stop(grace);
	}

	/** {@link #stop()}. */
	@Override
	public void close() {
		stop();
	}

	/** Whether the worker is claiming. */
	public boolean isRunning() {
		return this.runtime.isRunning();
	}

	/** How many handlers are running now. */
	public int activeHandlers() {
		return this.runtime.activeHandlers();
	}

	/** Settings of a {@link Worker}; only the client and the handler are required. */
	public static final class Builder {

		final WorkGraphClient client;

		String workerId;

		List<String> queues;

		int concurrency = 1;

		Integer leaseSeconds;

		int waitSeconds = 30;

		ItemHandler handler;

		FailurePolicy failurePolicy = FailurePolicy.releaseThenAskHuman(3);

		WorkerListener listener = new WorkerListener() {
		};

		Duration shutdownGrace = Duration.ofSeconds(30);

		Backoff retryBackoff = Backoff.exponential(Duration.ofMillis(200), Duration.ofSeconds(30));

		Backoff idleBackoff = Backoff.exponential(Duration.ofMillis(500), Duration.ofSeconds(5));

		ThreadFactory handlerThreads;

		boolean claimNextWithCompletion = true;

		boolean stream = true;

		LongSupplier nanoTime = System::nanoTime;

		RandomGenerator random = RandomGenerator.getDefault();

		private Builder(WorkGraphClient client) {
			this.client = Objects.requireNonNull(client, "client");
		}

		/**
		 * The worker's stable identity (1–200 characters): the same after a restart, so
		 * that the service can prefer it for items it asked a human about. May be left
		 * out with a worker token, which carries one.
		 */
		public Builder workerId(String workerId) {
			this.workerId = workerId;
			return this;
		}

		/** The queues to take items from; all queues when not given. */
		public Builder queues(String... queues) {
			this.queues = List.of(queues);
			return this;
		}

		public Builder queues(List<String> queues) {
			this.queues = List.copyOf(queues);
			return this;
		}

		/** How many items are worked on at once (handler threads); 1 by default. */
		public Builder concurrency(int concurrency) {
			if (concurrency < 1) {
				throw new IllegalArgumentException("concurrency must be at least 1");
			}
			this.concurrency = concurrency;
			return this;
		}

		/**
		 * The lease length to ask for, 1–86,400 s; the service's default (300 s) when not
		 * given. Renewed every third of it.
		 */
		public Builder leaseSeconds(int leaseSeconds) {
			this.leaseSeconds = leaseSeconds;
			return this;
		}

		/**
		 * How long a claim waits at the service for an item (0–60 s, 30 by default); 0
		 * polls with back-off instead.
		 */
		public Builder waitSeconds(int waitSeconds) {
			if (waitSeconds < 0 || waitSeconds > 60) {
				throw new IllegalArgumentException("waitSeconds must be between 0 and 60");
			}
			this.waitSeconds = waitSeconds;
			return this;
		}

		/** What to do with each item. */
		public Builder handler(ItemHandler handler) {
			this.handler = Objects.requireNonNull(handler, "handler");
			return this;
		}

		/**
		 * What happens to an item whose handler threw; by default
		 * {@link FailurePolicy#releaseThenAskHuman(int) releaseThenAskHuman(3)}.
		 */
		public Builder failurePolicy(FailurePolicy failurePolicy) {
			this.failurePolicy = Objects.requireNonNull(failurePolicy, "failurePolicy");
			return this;
		}

		public Builder listener(WorkerListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener");
			return this;
		}

		/** How long {@link Worker#stop()} lets handlers finish (30 s by default). */
		public Builder shutdownGrace(Duration shutdownGrace) {
			if (shutdownGrace == null || shutdownGrace.isNegative()) {
				throw new IllegalArgumentException("shutdownGrace must be zero or more");
			}
			this.shutdownGrace = shutdownGrace;
			return this;
		}

		/**
		 * The back-off between retries of failed claims, renewals and writes (200 ms
		 * doubling to 30 s, with full jitter, by default).
		 */
		public Builder retryBackoff(Backoff retryBackoff) {
			this.retryBackoff = Objects.requireNonNull(retryBackoff, "retryBackoff");
			return this;
		}

		/**
		 * Only when claims do not wait at the service: the pause after an empty answer
		 * (500 ms doubling to 5 s, with full jitter, by default).
		 */
		public Builder pollBackoff(Backoff idleBackoff) {
			this.idleBackoff = Objects.requireNonNull(idleBackoff, "idleBackoff");
			return this;
		}

		/**
		 * The threads handlers run on ({@code concurrency} of them, non-daemon by
		 * default). On Java 21 and newer, {@code Thread.ofVirtual().factory()} gives
		 * virtual threads.
		 */
		public Builder handlerThreads(ThreadFactory handlerThreads) {
			this.handlerThreads = Objects.requireNonNull(handlerThreads, "handlerThreads");
			return this;
		}

		/**
		 * Whether the completion with a handler's return value also claims the slot's
		 * next item, from the worker's queues under its lease length, in the same request
		 * ({@code claimNext}; true by default): a worker that goes from item to item then
		 * sends one request per item fewer. Never while stopping. Against a service that
		 * does not know {@code claimNext}, the worker notices once and completes without
		 * it.
		 */
		public Builder claimNextWithCompletion(boolean claimNextWithCompletion) {
			this.claimNextWithCompletion = claimNextWithCompletion;
			return this;
		}

		/**
		 * Whether the worker talks to the service over the worker stream (the default:
		 * one WebSocket for its claims, renewals and writes, docs/worker-stream.md) or
		 * with a request each. With the stream, a service or proxy that does not upgrade
		 * to a WebSocket makes the worker use HTTP long polls instead, by itself.
		 */
		public Builder stream(boolean stream) {
			this.stream = stream;
			return this;
		}

		/** The monotonic clock (tests only). */
		Builder nanoTime(LongSupplier nanoTime) {
			this.nanoTime = nanoTime;
			return this;
		}

		Builder random(RandomGenerator random) {
			this.random = random;
			return this;
		}

		public Worker build() {
			if (this.handler == null) {
				throw new IllegalStateException("A worker needs a handler");
			}
			if (this.leaseSeconds != null && (this.leaseSeconds < 1 || this.leaseSeconds > 86_400)) {
				throw new IllegalStateException("leaseSeconds must be between 1 and 86400");
			}
			return new Worker(this);
		}

	}

}
