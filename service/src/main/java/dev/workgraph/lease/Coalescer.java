package dev.workgraph.lease;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;

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
 * @param <K> what requests must share to be served together
 * @param <Q> a request
 * @param <P> the in-lane phase's result for a request
 * @param <R> the final result for a request
 */
final class Coalescer<K, Q, P, R> {

	private final BiFunction<K, List<Q>, List<P>> inLane;

	private final BiFunction<K, List<P>, List<R>> afterLane;

	private final int maxBatch;

	private final int maxInFlight;

	private final Duration maxWait;

	/** Guards every lane and waiter state change; held only for queue operations. */
	private final ReentrantLock lock = new ReentrantLock();

	/** Lanes with batches in flight; an idle lane is removed, so keys do not pile up. */
	private final Map<K, Lane<Q, R>> lanes = new HashMap<>();

	Coalescer(BiFunction<K, List<Q>, List<P>> inLane, BiFunction<K, List<P>, List<R>> afterLane, int maxBatch,
			int maxInFlight, Duration maxWait) {
		if (maxBatch < 1 || maxInFlight < 1) {
			throw new IllegalArgumentException("maxBatch and maxInFlight must be at least 1");
		}
		this.inLane = inLane;
		this.afterLane = afterLane;
		this.maxBatch = maxBatch;
		this.maxInFlight = maxInFlight;
		this.maxWait = maxWait;
	}

	/**
	 * Serves the request, alone or together with others of the same key; returns its
	 * result or throws what failed its batch.
	 */
	R submit(K key, Q request) {
		Waiter<Q, R> waiter = new Waiter<>(request);
		boolean leading;
		this.lock.lock();
		try {
			Lane<Q, R> lane = this.lanes.computeIfAbsent(key, (k) -> new Lane<>());
			// Requests queue only while every slot is busy, so nobody waits for a free
			// one.
			leading = lane.inFlight < this.maxInFlight;
			if (leading) {
				lane.inFlight++;
			}
			else {
				lane.pending.addLast(waiter);
			}
		}
		finally {
			this.lock.unlock();
		}
		if (!leading) {
			Outcome<R> outcome = awaitTurn(key, waiter);
			if (!(outcome instanceof Lead)) {
				return unwrap(outcome);
			}
		}
		return unwrap(lead(key, waiter));
	}

	/**
	 * Waits until the waiter's batch is done or the lane is handed to it ({@link Lead}).
	 * A waiter gives up only while it is still queued (it withdraws, so no batch ever
	 * answers to nobody) or after its batch overran a second {@code maxWait}.
	 */
	private Outcome<R> awaitTurn(K key, Waiter<Q, R> waiter) {
		long deadline = System.nanoTime() + this.maxWait.toNanos();
		boolean interrupted = false;
		Outcome<R> outcome = null;
		try {
			while (outcome == null) {
				try {
					outcome = waiter.outcome.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
					if (withdraw(key, waiter)) {
						throw new IllegalStateException("Interrupted while waiting for a batch", ex);
					}
				}
				catch (TimeoutException ex) {
					if (withdraw(key, waiter)) {
						throw timedOut("queued for a batch");
					}
					// Taken into a batch (the outcome is on its way), or just
					// handed a slot (the outcome is there): a slot is only ever
					// handed to a queued waiter.
					outcome = waiter.outcome.get(this.maxWait.toNanos(), TimeUnit.NANOSECONDS);
				}
			}
			if (interrupted && outcome instanceof Lead) {
				// Do not run a batch on an interrupted thread: pass the slot on.
				handOn(key);
				throw new IllegalStateException("Interrupted while waiting for a batch");
			}
			return outcome;
		}
		catch (TimeoutException ex) {
			throw timedOut("its batch was running");
		}
		catch (InterruptedException ex) {
			interrupted = true;
			throw new IllegalStateException("Interrupted while waiting for a batch", ex);
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

	/** Removes a waiter that is still queued; false once a batch took it or it leads. */
	private boolean withdraw(K key, Waiter<Q, R> waiter) {
		this.lock.lock();
		try {
			Lane<Q, R> lane = this.lanes.get(key);
			return lane != null && lane.pending.remove(waiter);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Runs one batch: the leader and up to {@code maxBatch - 1} queued requests, oldest
	 * first. Answers every other request of the batch and returns the leader's outcome.
	 */
	private Outcome<R> lead(K key, Waiter<Q, R> leader) {
		List<Waiter<Q, R>> batch = new ArrayList<>();
		batch.add(leader);
		this.lock.lock();
		try {
			Lane<Q, R> lane = this.lanes.get(key);
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
			phaseOne = answers(this.inLane.apply(key, requests), batch.size());
		}
		catch (Throwable ex) {
			batch.forEach((waiter) -> outcomes.add(new Failed<>(ex)));
		}
		finally {
			handOn(key);
		}
		if (phaseOne != null) {
			try {
				answers(this.afterLane.apply(key, phaseOne), batch.size())
					.forEach((result) -> outcomes.add(new Done<>(result)));
			}
			catch (Throwable ex) {
				outcomes.clear();
				batch.forEach((waiter) -> outcomes.add(new Failed<>(ex)));
			}
		}
		for (int i = 1; i < batch.size(); i++) {
			batch.get(i).outcome.complete(outcomes.get(i));
		}
		return outcomes.getFirst();
	}

	/**
	 * Gives the batch's slot to the oldest queued request, or frees it when nobody is
	 * waiting (and retires the lane once no batch of it is in flight).
	 */
	private void handOn(K key) {
		this.lock.lock();
		try {
			Lane<Q, R> lane = this.lanes.get(key);
			Waiter<Q, R> next = lane.pending.pollFirst();
			if (next != null) {
				next.outcome.complete(new Lead<>());
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
		this.lock.lock();
		try {
			Lane<Q, R> lane = this.lanes.get(key);
			return (lane != null) ? lane.pending.size() : 0;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Keys with a batch in flight (for tests). */
	int lanesInFlight() {
		this.lock.lock();
		try {
			return this.lanes.size();
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

	private static <R> R unwrap(Outcome<R> outcome) {
		if (outcome instanceof Done<R> done) {
			return done.result();
		}
		if (outcome instanceof Failed<R> failed) {
			// The batch's own exception, so that each request is answered as if it had
			// run alone (503 for an unreachable database, and so on).
			if (failed.failure() instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (failed.failure() instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException(failed.failure());
		}
		throw new IllegalStateException("Handed the lane, not an answer");
	}

	private ClaimQueueTimedOut timedOut(String where) {
		return new ClaimQueueTimedOut(this.maxWait, where);
	}

	/**
	 * The batches in flight for a key and the requests waiting for a slot; the lane
	 * exists while a batch is in flight.
	 */
	private static final class Lane<Q, R> {

		final ArrayDeque<Waiter<Q, R>> pending = new ArrayDeque<>();

		int inFlight;

	}

	private record Waiter<Q, R>(Q request, CompletableFuture<Outcome<R>> outcome) {

		Waiter(Q request) {
			this(request, new CompletableFuture<>());
		}

		// Identity, not value equality: two equal requests are still two waiters.
		@Override
		public boolean equals(Object other) {
			return this == other;
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this);
		}

	}

	private sealed interface Outcome<R> permits Done, Failed, Lead {

	}

	private record Done<R>(R result) implements Outcome<R> {
	}

	private record Failed<R>(Throwable failure) implements Outcome<R> {
	}

	/** The lane is yours: take the queued requests and run the next batch. */
	private record Lead<R>() implements Outcome<R> {
	}

}
