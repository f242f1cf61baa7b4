package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workgraph.client.ClaimRequest;
import dev.workgraph.client.problem.RequestRejected;

import static java.lang.System.Logger.Level.ERROR;
import static java.lang.System.Logger.Level.INFO;

/**
 * What runs in a {@link Worker}, and its lifecycle: the claiming thread with its
 * {@link ClaimLoop}, the {@link HandlerSlots}, the scheduler that renews leases, and the
 * transport they all send through.
 *
 * <pre>
 * NEW ──start()──▶ RUNNING ──stop(), or the service refused the token──▶ STOPPING ──▶ STOPPED
 * </pre>
 */
final class WorkerRuntime {

	private static final AtomicInteger INSTANCES = new AtomicInteger();

	private enum Phase {

		NEW, RUNNING, STOPPING, STOPPED

	}

	private final String name;

	private final Settings settings;

	private final int concurrency;

	private final Duration shutdownGrace;

	private final ScheduledThreadPoolExecutor scheduler;

	private final ClaimLoop claimLoop;

	private final HandlerSlots slots;

	private final Thread claimer;

	private final CompletableFuture<Void> stopped = new CompletableFuture<>();

	// Guarded by this:

	private Phase phase = Phase.NEW;

	private TokenRefused failure;

	WorkerRuntime(Worker.Builder builder) {
		this.name = "workgraph-worker-" + INSTANCES.incrementAndGet()
				+ ((builder.workerId != null) ? "[" + builder.workerId + "]" : "");
		this.scheduler = new ScheduledThreadPoolExecutor(1, named(this.name + "-renewer", true));
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.settings = new Settings(builder.client,
				builder.stream ? new StreamTransport(builder.client) : new HttpTransport(builder.client),
				builder.workerId, builder.leaseSeconds, builder.retryBackoff, this.scheduler, builder.listener,
				builder.nanoTime, builder.random, this::tokenRefused);
		this.concurrency = builder.concurrency;
		this.shutdownGrace = builder.shutdownGrace;
		Semaphore permits = new Semaphore(builder.concurrency);
		ClaimRequest request = new ClaimRequest(builder.workerId, builder.queues, builder.leaseSeconds,
				(builder.waitSeconds > 0) ? builder.waitSeconds : null);
		this.claimLoop = new ClaimLoop(this.settings, request, permits, builder.idleBackoff, this::dispatch,
				builder.claimNextWithCompletion);
		ExecutorService handlers = Executors.newFixedThreadPool(builder.concurrency,
				(builder.handlerThreads != null) ? builder.handlerThreads : named(this.name + "-handler", false));
		this.slots = new HandlerSlots(this.settings, permits, handlers,
				new HandlerRunner(builder.handler, builder.failurePolicy, this.claimLoop),
				this.claimLoop::releaseUnwanted);
		this.claimer = named(this.name + "-claimer", false).newThread(this.claimLoop);
	}

	synchronized void start() {
		if (this.phase != Phase.NEW) {
			throw new IllegalStateException("The worker was started before");
		}
		this.phase = Phase.RUNNING;
		this.claimer.start();
		Settings.LOG.log(INFO, "Worker {0} started: {1} handler(s)", this.settings.workerName(), this.concurrency);
	}

	/** Completes once stopped: with the {@link TokenRefused} that stopped it, if any. */
	CompletableFuture<Void> stopped() {
		return this.stopped;
	}

	/** Stops with the builder's grace period. */
	void stop() {
		stop(this.shutdownGrace);
	}

	void stop(Duration grace) {
		boolean started;
		synchronized (this) {
			if (this.phase == Phase.STOPPED || this.phase == Phase.STOPPING) {
				awaitStopped();
				return;
			}
			started = this.phase == Phase.RUNNING;
			this.phase = Phase.STOPPING;
			this.slots.stopAccepting();
		}
		try {
			if (started) {
				this.claimLoop.stop();
				this.claimer.interrupt();
				join(this.claimer, Duration.ofSeconds(30));
				this.slots.stop(grace);
			}
			else {
				this.slots.stopNow();
			}
		}
		finally {
			this.scheduler.shutdownNow();
			this.settings.transport().close();
			markStopped();
			if (started) {
				Settings.LOG.log(INFO, "Worker {0} stopped", this.settings.workerName());
			}
		}
	}

	synchronized boolean isRunning() {
		return this.phase == Phase.RUNNING;
	}

	int activeHandlers() {
		return this.slots.running();
	}

	/** The claim loop hands a claim over to a free slot (it holds its permit). */
	private void dispatch(TimedClaim claim) {
		this.slots.dispatch(claim);
	}

	/**
	 * The service refused the worker's token (for a claim, a renewal or a write): sending
	 * it again would be refused again, so the worker stops, saying why once.
	 */
	private void tokenRefused(RequestRejected refusal) {
		TokenRefused stopping;
		boolean running;
		synchronized (this) {
			if (this.failure != null || this.phase == Phase.STOPPED) {
				return;
			}
			stopping = TokenRefused.of(refusal, this.settings.workerId());
			this.failure = stopping;
			running = this.phase == Phase.RUNNING;
		}
		Settings.LOG.log(ERROR, "{0}", stopping.getMessage());
		if (running) {
			// No claim from now on (the caller loses its lease only after this);
			// the rest of the stop on a thread of its own: this may be the claiming
			// thread, which stop() waits for.
			this.claimLoop.stop();
			named(this.name + "-stopper", false).newThread(this::stop).start();
		}
	}

	private void markStopped() {
		TokenRefused stoppedBy;
		synchronized (this) {
			this.phase = Phase.STOPPED;
			notifyAll();
			stoppedBy = this.failure;
		}
		// Outside the lock: whoever waits on the future runs now.
		if (stoppedBy != null) {
			this.stopped.completeExceptionally(stoppedBy);
		}
		else {
			this.stopped.complete(null);
		}
	}

	private synchronized void awaitStopped() {
		while (this.phase != Phase.STOPPED) {
			try {
				wait();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private static void join(Thread thread, Duration timeout) {
		try {
			thread.join(timeout.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static ThreadFactory named(String prefix, boolean daemon) {
		AtomicInteger count = new AtomicInteger();
		return (task) -> {
			Thread thread = new Thread(task, prefix + "-" + count.incrementAndGet());
			thread.setDaemon(daemon);
			return thread;
		};
	}

}
