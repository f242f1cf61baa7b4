package dev.workgraph.batching;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Serves concurrent requests that share a key with one batch call (leader/follower,
 * natural batching). A key has {@code maxInFlight} slots for batches. A request that
 * finds a free slot runs at once, alone: no added delay at low load. Requests that arrive
 * while every slot is busy queue up; when a batch is done its leader hands its slot to
 * the oldest of them, which takes up to {@code maxBatch} queued requests (oldest first)
 * into the next batch. So batches grow with the load, and at most {@code maxInFlight} per
 * key run at once.
 *
 * <p>
 * A batch runs in two phases. {@code inLane} (e.g. the claim transaction) holds the lane;
 * {@code afterLane} (e.g. reading views of what was claimed) runs after the lane has been
 * handed on, so the next batch does not wait for it. Both get the batch in request order
 * and must answer one result per request, in that order.
 *
 * <p>
 * Every request gets its result or an exception: a batch that throws fails each of its
 * requests with that exception. Waits are bounded: a request still queued after
 * {@code maxWait} withdraws and fails with {@link ClaimQueueTimedOut} (the service is
 * overloaded); one already taken into a batch waits for that batch, which is bounded by
 * the connection pool's and the JDBC driver's timeouts, and gives up the same way after
 * another {@code maxWait} at the latest.
 *
 * <p>
 * Those limits are kept by a sweep over the waiting requests, a few times per
 * {@code maxWait} while any wait, rather than by each request's own timed wait: a virtual
 * thread's timed park arms a timer and disarms it again, two wake-ups of the scheduler's
 * timer thread per request, which under load cost the service several per cent of its
 * CPU.
 *
 * @param <K> what requests must share to be served together
 * @param <Q> a request
 * @param <P> the in-lane phase's result for a request
 * @param <R> the final result for a request
 */
final class Coalescer<K, Q, P, R> implements Batcher<K, Q, R> {

	/** The longest a limit is overrun: the sweep's interval at the default 30 s. */
	private static final Duration MAX_SWEEP_INTERVAL = Duration.ofMillis(250);

	/**
	 * Runs the sweeps of every coalescer: one platform thread, woken only while requests
	 * wait. A coalescer with nobody waiting has no sweep scheduled, so one no longer used
	 * leaves nothing behind.
	 */
	private static final ScheduledExecutorService SWEEPS = Executors
		.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("coalescer-sweep").factory());

	private final BiFunction<K, List<Q>, List<P>> inLane;

	/** Where {@code inLane} runs ({@link BatchThreads}), the leader waiting for it. */
	private final Executor batches;

	private final BiFunction<K, List<P>, List<R>> afterLane;

	private final int maxBatch;

	private final int maxInFlight;

	private final Duration maxWait;

	/** Guards every lane and waiter state change; held only for queue operations. */
	private final ReentrantLock lock = new ReentrantLock();

	/** Lanes with batches in flight; an idle lane is removed, so keys do not pile up. */
	private final Map<K, Lane<K, Q, R>> lanes = new HashMap<>();

	/**
	 * Requests that waited for a batch or a slot since the last sweep; the sweep drops
	 * those that have their outcome.
	 */
	private final Set<Waiter<K, Q, R>> waiting = new HashSet<>();

	/** How often the waits are swept while there are any. */
	private final Duration sweepEvery;

	private boolean sweepScheduled;

	/** Runs each batch on its leader's own thread. */
	Coalescer(BiFunction<K, List<Q>, List<P>> inLane, BiFunction<K, List<P>, List<R>> afterLane, int maxBatch,
			int maxInFlight, Duration maxWait) {
		this(inLane, afterLane, maxBatch, maxInFlight, maxWait, Runnable::run);
	}

	Coalescer(BiFunction<K, List<Q>, List<P>> inLane, BiFunction<K, List<P>, List<R>> afterLane, int maxBatch,
			int maxInFlight, Duration maxWait, Executor batches) {
		if (maxBatch < 1 || maxInFlight < 1) {
			throw new IllegalArgumentException("maxBatch and maxInFlight must be at least 1");
		}
		this.inLane = inLane;
		this.batches = batches;
		this.afterLane = afterLane;
		this.maxBatch = maxBatch;
		this.maxInFlight = maxInFlight;
		this.maxWait = maxWait;
		this.sweepEvery = clamp(maxWait.dividedBy(10), Duration.ofMillis(1), MAX_SWEEP_INTERVAL);
	}

	/**
	 * Serves the request, alone or together with others of the same key; returns its
	 * result or throws what failed its batch.
	 */
	@Override
	public R submit(K key, Q request) {
		Waiter<K, Q, R> waiter = new Waiter<>(key, request, System.nanoTime());
		boolean leading;
		this.lock.lock();
		try {
			Lane<K, Q, R> lane = this.lanes.computeIfAbsent(key, (k) -> new Lane<>());
			// Requests queue only while every slot is busy, so nobody waits for a free
			// one.
			leading = lane.inFlight < this.maxInFlight;
			if (leading) {
				lane.inFlight++;
			}
			else {
				lane.pending.addLast(waiter);
				this.waiting.add(waiter);
				if (!this.sweepScheduled) {
					scheduleSweep();
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		if (!leading) {
			Outcome<R> outcome = awaitTurn(waiter);
			if (!(outcome instanceof Outcome.Lead)) {
				return Outcome.unwrap(outcome);
			}
		}
		return Outcome.unwrap(lead(key, waiter));
	}

	/**
	 * Waits until the waiter's batch is done or the lane is handed to it
	 * ({@link Outcome.Lead}), or the sweep gave up on it ({@link Outcome.TimedOut}). A
	 * waiter is given up only while it is still queued (it is withdrawn, so no batch ever
	 * answers to nobody) or after its batch overran a second {@code maxWait}.
	 */
	private Outcome<R> awaitTurn(Waiter<K, Q, R> waiter) {
		boolean interrupted = false;
		Outcome<R> outcome = null;
		try {
			while (outcome == null) {
				try {
					outcome = waiter.outcome().get();
				}
				catch (InterruptedException ex) {
					interrupted = true;
					if (withdraw(waiter)) {
						throw new IllegalStateException("Interrupted while waiting for a batch", ex);
					}
					// Taken into a batch or handed the lane: its outcome is on its way.
				}
			}
			if (interrupted && outcome instanceof Outcome.Lead) {
				// Do not run a batch on an interrupted thread: pass the slot on.
				handOn(waiter.key());
				throw new IllegalStateException("Interrupted while waiting for a batch");
			}
			if (outcome instanceof Outcome.TimedOut<R> timedOut) {
				throw new ClaimQueueTimedOut(this.maxWait, timedOut.where());
			}
			return outcome;
		}
		catch (ExecutionException ex) {
			// Outcomes are only ever completed normally.
			throw new IllegalStateException(ex);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Under the lock: the next sweep, one interval from now. */
	private void scheduleSweep() {
		this.sweepScheduled = true;
		SWEEPS.schedule(this::sweep, this.sweepEvery.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** Removes a waiter that is still queued; false once a batch took it or it leads. */
	private boolean withdraw(Waiter<K, Q, R> waiter) {
		return locked(() -> withdrawLocked(waiter));
	}

	private boolean withdrawLocked(Waiter<K, Q, R> waiter) {
		Lane<K, Q, R> lane = this.lanes.get(waiter.key());
		return lane != null && lane.pending.remove(waiter);
	}

	/**
	 * Gives up on the waits past their limits: a request queued for longer than
	 * {@code maxWait} is withdrawn, one whose batch has kept it for twice that is
	 * answered without it. Runs again while anyone waits.
	 */
	private void sweep() {
		long now = System.nanoTime();
		List<Waiter<K, Q, R>> queuedTooLong = new ArrayList<>();
		List<Waiter<K, Q, R>> batchTooLong = new ArrayList<>();
		this.lock.lock();
		try {
			for (Iterator<Waiter<K, Q, R>> it = this.waiting.iterator(); it.hasNext();) {
				Waiter<K, Q, R> waiter = it.next();
				long waited = now - waiter.since();
				if (waiter.outcome().isDone()) {
					it.remove();
				}
				else if (waited >= this.maxWait.toNanos() && withdrawLocked(waiter)) {
					it.remove();
					queuedTooLong.add(waiter);
				}
				else if (waited >= 2 * this.maxWait.toNanos()) {
					it.remove();
					batchTooLong.add(waiter);
				}
			}
			this.sweepScheduled = false;
			if (!this.waiting.isEmpty()) {
				scheduleSweep();
			}
		}
		finally {
			this.lock.unlock();
		}
		queuedTooLong.forEach((waiter) -> waiter.outcome().complete(new Outcome.TimedOut<>("queued for a batch")));
		// Its batch may still answer it: the first outcome stands, the other is dropped.
		batchTooLong.forEach((waiter) -> waiter.outcome().complete(new Outcome.TimedOut<>("its batch was running")));
	}

	/**
	 * Runs one batch: the leader and up to {@code maxBatch - 1} queued requests, oldest
	 * first. Answers every other request of the batch and returns the leader's outcome.
	 */
	private Outcome<R> lead(K key, Waiter<K, Q, R> leader) {
		List<Waiter<K, Q, R>> batch = new ArrayList<>();
		batch.add(leader);
		this.lock.lock();
		try {
			Lane<K, Q, R> lane = this.lanes.get(key);
			while (batch.size() < this.maxBatch && !lane.pending.isEmpty()) {
				batch.add(lane.pending.removeFirst());
			}
		}
		finally {
			this.lock.unlock();
		}
		List<Q> requests = batch.stream().map(Waiter::request).toList();
		List<Outcome<R>> outcomes = new ArrayList<>(batch.size());
		List<P> phaseOne = null;
		try {
			phaseOne = answers(runInLane(key, requests), batch.size());
		}
		catch (Throwable ex) {
			batch.forEach((waiter) -> outcomes.add(new Outcome.Failed<>(ex)));
		}
		finally {
			handOn(key);
		}
		if (phaseOne != null) {
			try {
				answers(this.afterLane.apply(key, phaseOne), batch.size())
					.forEach((result) -> outcomes.add(new Outcome.Done<>(result)));
			}
			catch (Throwable ex) {
				outcomes.clear();
				batch.forEach((waiter) -> outcomes.add(new Outcome.Failed<>(ex)));
			}
		}
		for (int i = 1; i < batch.size(); i++) {
			batch.get(i).outcome().complete(outcomes.get(i));
		}
		return outcomes.getFirst();
	}

	/**
	 * The in-lane phase where it runs; what it throws is thrown here as it was. A lone
	 * request runs on its own thread: at low load nothing is gained by a hop to another.
	 */
	private List<P> runInLane(K key, List<Q> requests) throws Throwable {
		if (requests.size() == 1) {
			return this.inLane.apply(key, requests);
		}
		try {
			return CompletableFuture.supplyAsync(() -> this.inLane.apply(key, requests), this.batches).join();
		}
		catch (CompletionException ex) {
			throw ex.getCause();
		}
	}

	/**
	 * Gives the batch's slot to the oldest queued request, or frees it when nobody is
	 * waiting (and retires the lane once no batch of it is in flight).
	 */
	private void handOn(K key) {
		this.lock.lock();
		try {
			Lane<K, Q, R> lane = this.lanes.get(key);
			Waiter<K, Q, R> next = lane.pending.pollFirst();
			if (next != null) {
				next.outcome().complete(new Outcome.Lead<>());
			}
			else if (--lane.inFlight == 0) {
				this.lanes.remove(key);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Requests queued for the key's lane (for tests). */
	int queued(Object key) {
		return locked(() -> {
			Lane<K, Q, R> lane = this.lanes.get(key);
			return (lane != null) ? lane.pending.size() : 0;
		});
	}

	/** Whether a sweep of the waits is scheduled (for tests). */
	boolean sweeping() {
		return locked(() -> this.sweepScheduled);
	}

	/** Keys with a batch in flight (for tests). */
	int lanesInFlight() {
		return locked(this.lanes::size);
	}

	/** What {@code read} reads, under the lock. */
	private <T> T locked(Supplier<T> read) {
		this.lock.lock();
		try {
			return read.get();
		}
		finally {
			this.lock.unlock();
		}
	}

	private static <T> List<T> answers(List<T> answers, int expected) {
		if (answers == null || answers.size() != expected) {
			throw new IllegalStateException(
					"A batch of " + expected + " answered " + ((answers != null) ? answers.size() : "nothing"));
		}
		return answers;
	}

	private static Duration clamp(Duration value, Duration min, Duration max) {
		return (value.compareTo(min) < 0) ? min : (value.compareTo(max) > 0) ? max : value;
	}

	/**
	 * The batches in flight for a key and the requests waiting for a slot; the lane
	 * exists while a batch is in flight.
	 */
	private static final class Lane<K, Q, R> {

		final ArrayDeque<Waiter<K, Q, R>> pending = new ArrayDeque<>();

		int inFlight;

	}

}
