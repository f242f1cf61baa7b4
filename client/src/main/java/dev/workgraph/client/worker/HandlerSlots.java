package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.workgraph.client.Claim;

import static java.lang.System.Logger.Level.WARNING;

/**
 * A worker's handler slots: each runs the handler on a lease the claim loop handed over,
 * then on each item its completion claimed next, and frees its slot (a permit the claim
 * loop took) once a completion brought none. Holds the leases being worked on, so that a
 * stop can take them from handlers that outlive the grace period.
 */
final class HandlerSlots {

	static final String SHUTTING_DOWN = "worker shutting down";

	private final Settings settings;

	private final Semaphore permits;

	private final ExecutorService threads;

	private final HandlerRunner runner;

	private final Consumer<Claim> giveBack;

	private final Set<ActiveLease> active = ConcurrentHashMap.newKeySet();

	private boolean accepting = true; // guarded by this

	/**
	 * @param permits one per slot, taken by the claim loop before each claim
	 * @param giveBack releases a claim made with a completion once the worker is stopping
	 */
	HandlerSlots(Settings settings, Semaphore permits, ExecutorService threads, HandlerRunner runner,
			Consumer<Claim> giveBack) {
		this.settings = settings;
		this.permits = permits;
		this.threads = threads;
		this.runner = runner;
		this.giveBack = giveBack;
	}

	/** Takes a claim of the claim loop, which owns a slot for it. */
	void dispatch(TimedClaim claim) {
		ActiveLease lease = new ActiveLease(this.settings, claim);
		this.active.add(lease);
		started(lease);
		try {
			this.threads.execute(() -> work(lease));
		}
		catch (RejectedExecutionException ex) {
			// Stopping raced with this claim: give the item back.
			this.active.remove(lease);
			lease.stopForShutdown(SHUTTING_DOWN);
			this.permits.release();
		}
	}

	/** How many handlers are running now. */
	int running() {
		return this.active.size();
	}

	/**
	 * A claim made with a completion from now on is released at once, as the claim loop
	 * releases a claim that arrives while stopping.
	 */
	synchronized void stopAccepting() {
		this.accepting = false;
	}

	/**
	 * Lets the handlers finish for up to {@code grace}, then takes the leases of those
	 * still running (they are interrupted) and releases them.
	 */
	void stop(Duration grace) {
		this.threads.shutdown();
		if (!await(grace)) {
			List<ActiveLease> unfinished = new ArrayList<>(this.active);
			Settings.LOG.log(WARNING,
					"Worker {0}: {1} handler(s) still running after {2} ms; interrupting them "
							+ "and releasing their leases",
					this.settings.workerName(), unfinished.size(), grace.toMillis());
			unfinished.forEach((lease) -> lease.stopForShutdown(SHUTTING_DOWN));
			if (!await(Duration.ofSeconds(10))) {
				this.threads.shutdownNow();
			}
		}
	}

	/** For a worker that never started. */
	void stopNow() {
		this.threads.shutdownNow();
	}

	/**
	 * One handler slot at work: runs the handler for the lease, then for each item its
	 * completion claimed next ({@code claimNext}), and frees the slot once a completion
	 * brought none.
	 */
	private void work(ActiveLease first) {
		try {
			ActiveLease lease = first;
			while (lease != null) {
				TimedClaim next;
				try {
					next = this.runner.run(lease);
				}
				finally {
					this.active.remove(lease);
				}
				lease = (next != null) ? takeOver(next) : null;
			}
		}
		finally {
			this.permits.release();
		}
	}

	/**
	 * A claim made with a completion becomes the slot's next lease, as if the claim loop
	 * had dispatched it; unless the worker is stopping by now, in which case it is
	 * released at once.
	 */
	private ActiveLease takeOver(TimedClaim next) {
		ActiveLease lease = new ActiveLease(this.settings, next);
		boolean accepted;
		synchronized (this) {
			// Under the lock that stopAccepting() takes: a lease added here is among
			// those stop() finds once the grace period is over.
			accepted = this.accepting;
			if (accepted) {
				this.active.add(lease);
			}
		}
		if (!accepted) {
			this.giveBack.accept(next.claim());
			return null;
		}
		try {
			started(lease);
		}
		catch (RejectedExecutionException ex) {
			this.active.remove(lease);
			lease.stopForShutdown(SHUTTING_DOWN);
			return null;
		}
		return lease;
	}

	private void started(ActiveLease lease) {
		lease.start();
		this.settings.tell(() -> this.settings.listener().claimed(lease));
	}

	private boolean await(Duration timeout) {
		try {
			return this.threads.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
