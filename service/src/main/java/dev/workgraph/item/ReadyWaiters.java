package dev.workgraph.item;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import dev.workgraph.access.TokenMemory;
import dev.workgraph.notification.ChannelSubscriber;
import dev.workgraph.notification.NotificationListener;
import dev.workgraph.notification.NotificationProperties;

import org.springframework.stereotype.Component;

/**
 * Requests that wait for an item to become ready (long-poll claims, docs/adr/0008). A
 * waiter holds no database connection while it waits, only its (virtual) request thread;
 * it is woken when {@link NotificationListener} hears that items became ready in one of
 * its queues.
 *
 * <p>
 * Waiters with the same queues filter form a group in arrival order, and only the group's
 * head tries to claim: when it gets an item it leaves and hands the turn to the next one
 * (another item may be ready too), so waiters of the same queues are served in arrival
 * order on this instance and one item does not send a hundred waiters racing for it.
 * Wake-ups cannot be lost: a new head checks before it waits (register, check, wait), a
 * wake-up that arrives while the head is checking makes it check again, every head
 * re-checks after the listener (re)connects, and a head that has heard nothing re-checks
 * every {@code workgraph.notifications.recheck-interval} anyway.
 *
 * <p>
 * A wait may belong to an owner (the token of the request): {@link #endWaitsOf} ends
 * every wait of that owner, on this instance, at once (the token was revoked), and for as
 * long as any wait may last a new wait of that owner ends as soon as it begins.
 */
@Component
public class ReadyWaiters implements ChannelSubscriber {

	/** Longer than any wait (60 s) plus the time a request takes to begin waiting. */
	private static final long ENDED_FOR_NANOS = Duration.ofMinutes(2).toNanos();

	/** Guards the groups and every waiter's state; held only to change them. */
	private final ReentrantLock lock = new ReentrantLock();

	private final Map<QueueFilter, ArrayDeque<Waiter>> groups = new HashMap<>();

	private final long recheckNanos;

	/** Guarded by the lock: the instance is shutting down, nobody waits any more. */
	private boolean stopped;

	/**
	 * Guarded by the lock: owners whose waits were ended, with when (System.nanoTime),
	 * kept for {@link #ENDED_FOR_NANOS}. A request that was let in just before its token
	 * was revoked may only begin its wait after the revocation was heard.
	 */
	private final Map<Object, Long> ended = new HashMap<>();

	/** Guarded by the lock: how many waits each owner has. */
	private final Map<Object, Integer> waitsPerOwner = new HashMap<>();

	private final int maxWaitsPerOwner;

	ReadyWaiters(NotificationProperties properties) {
		this.recheckNanos = properties.recheckInterval().toNanos();
		this.maxWaitsPerOwner = properties.maxWaitingClaimsPerToken();
	}

	/**
	 * Waits up to {@code wait} for {@code attempt} (e.g. a claim) to answer something:
	 * runs it when it is this caller's turn among the waiters of the same queues and an
	 * item may have become ready in them. Answers empty when the wait ended first or the
	 * thread was interrupted. Exceptions of {@code attempt} end the wait and propagate.
	 * @param queues the queues the attempt takes from, null for all
	 * @param wait how long to wait at most
	 * @param attempt takes what is ready, or answers empty
	 */
	public <T> Optional<T> awaitReady(List<String> queues, Duration wait, Supplier<Optional<T>> attempt) {
		return awaitReady(queues, wait, null, attempt);
	}

	/**
	 * {@link #awaitReady(List, Duration, Supplier)} for a wait of this owner.
	 * @param queues the queues the attempt takes from, null for all
	 * @param wait how long to wait at most
	 * @param owner whose wait it is (see {@link #endWaitsOf}), or null
	 * @param attempt takes what is ready, or answers empty
	 */
	public <T> Optional<T> awaitReady(List<String> queues, Duration wait, Object owner, Supplier<Optional<T>> attempt) {
		long deadline = System.nanoTime() + wait.toNanos();
		QueueFilter filter = QueueFilter.of(queues);
		Waiter waiter = new Waiter(this.lock.newCondition(), owner);
		ArrayDeque<Waiter> group = join(filter, waiter);
		boolean handOn = true;
		try {
			while (awaitTurn(group, waiter, deadline)) {
				handOn = false;
				Optional<T> taken = attempt.get();
				handOn = true;
				if (taken.isPresent()) {
					return taken;
				}
			}
			return Optional.empty();
		}
		finally {
			leave(filter, group, waiter, handOn);
		}
	}

	/**
	 * Ends every wait of this owner now (they answer empty, whatever becomes ready), and
	 * every wait of it that begins within the next two minutes as soon as it begins.
	 */
	public void endWaitsOf(Object owner) {
		this.lock.lock();
		try {
			long now = System.nanoTime();
			this.ended.values().removeIf((endedAt) -> now - endedAt > ENDED_FOR_NANOS);
			this.ended.put(owner, now);
			this.groups.values().forEach((group) -> group.forEach((waiter) -> {
				if (owner.equals(waiter.owner)) {
					waiter.wake.signal();
				}
			}));
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Wakes the head of every group that takes from the queue. */
	void readyIn(String queue) {
		this.lock.lock();
		try {
			this.groups.forEach((filter, group) -> {
				if (filter.includes(queue)) {
					signalHead(group);
				}
			});
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Wakes the head of every group to re-check: after the listener (re)connected,
	 * notifications sent while it was away are lost.
	 */
	void recheckAll() {
		this.lock.lock();
		try {
			this.groups.values().forEach(ReadyWaiters::signalHead);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Ends every wait (the waits answer empty) and lets no request wait from now on: the
	 * instance is shutting down, and a request that waits would hold up its graceful
	 * shutdown.
	 */
	void stopWaiting() {
		this.lock.lock();
		try {
			this.stopped = true;
			this.groups.values().forEach((group) -> group.forEach((waiter) -> waiter.wake.signal()));
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Lets requests wait again: the listener started again after a stop (a paused and
	 * resumed application context, as the test framework does with the contexts it
	 * caches).
	 */
	void resumeWaiting() {
		this.lock.lock();
		try {
			this.stopped = false;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** How many requests are waiting on this instance. */
	public int waiting() {
		this.lock.lock();
		try {
			return this.groups.values().stream().mapToInt(ArrayDeque::size).sum();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** How many requests wait with this queues filter (null: all queues). */
	int waiting(List<String> queues) {
		this.lock.lock();
		try {
			ArrayDeque<Waiter> group = this.groups.get(QueueFilter.of(queues));
			return (group != null) ? group.size() : 0;
		}
		finally {
			this.lock.unlock();
		}
	}

	private ArrayDeque<Waiter> join(QueueFilter filter, Waiter waiter) {
		this.lock.lock();
		try {
			if (waiter.owner != null) {
				int waits = this.waitsPerOwner.getOrDefault(waiter.owner, 0);
				if (waits >= this.maxWaitsPerOwner) {
					throw new TooManyWaitingClaims(this.maxWaitsPerOwner);
				}
				this.waitsPerOwner.put(waiter.owner, waits + 1);
			}
			ArrayDeque<Waiter> group = this.groups.computeIfAbsent(filter, (key) -> new ArrayDeque<>());
			group.addLast(waiter);
			// Register, then check: the new head checks before it first waits. Later
			// arrivals wait for their turn; the head checks for them.
			waiter.signalled = group.peekFirst() == waiter;
			return group;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until the waiter is signalled (and consumes the signal) or the deadline
	 * passes. A head that has heard nothing for the recheck interval signals itself.
	 */
	private boolean awaitTurn(ArrayDeque<Waiter> group, Waiter waiter, long deadline) {
		this.lock.lock();
		try {
			long recheckAt = System.nanoTime() + this.recheckNanos;
			if (endedOwner(waiter)) {
				return false;
			}
			while (!waiter.signalled) {
				long now = System.nanoTime();
				if (this.stopped || now - deadline >= 0 || endedOwner(waiter)) {
					return false;
				}
				boolean head = group.peekFirst() == waiter;
				if (head && now - recheckAt >= 0) {
					break;
				}
				long until = (head && recheckAt - deadline < 0) ? recheckAt : deadline;
				try {
					waiter.wake.awaitNanos(until - now);
				}
				catch (InterruptedException ex) {
					// The request is being called off: claim nothing for it.
					Thread.currentThread().interrupt();
					return false;
				}
			}
			waiter.signalled = false;
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Removes the waiter; a head that leaves hands the turn on unless its attempt failed
	 * (then the next head waits for a notification or its recheck, so that a database
	 * outage does not run every waiter's attempt one after the other).
	 */
	private void leave(QueueFilter filter, ArrayDeque<Waiter> group, Waiter waiter, boolean handOn) {
		this.lock.lock();
		try {
			boolean head = group.peekFirst() == waiter;
			group.remove(waiter);
			if (waiter.owner != null) {
				this.waitsPerOwner.computeIfPresent(waiter.owner, (owner, waits) -> (waits > 1) ? waits - 1 : null);
			}
			if (group.isEmpty()) {
				this.groups.remove(filter);
			}
			else if (head) {
				// Without the turn, the new head still wakes to wait as a head (with its
				// recheck) instead of until its deadline.
				Waiter next = group.peekFirst();
				next.signalled |= handOn;
				next.wake.signal();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Guarded by the lock: whether the waiter's owner had its waits ended. */
	private boolean endedOwner(Waiter waiter) {
		if (waiter.owner == null) {
			return false;
		}
		Long endedAt = this.ended.get(waiter.owner);
		return endedAt != null && System.nanoTime() - endedAt <= ENDED_FOR_NANOS;
	}

	private static void signalHead(ArrayDeque<Waiter> group) {
		Waiter head = group.peekFirst();
		if (head != null) {
			head.signalled = true;
			head.wake.signal();
		}
	}

	/** The queues a waiter takes from, as a sorted set; null: all queues. */
	private record QueueFilter(List<String> queues) {

		static QueueFilter of(List<String> queues) {
			return new QueueFilter((queues != null) ? queues.stream().distinct().sorted().toList() : null);
		}

		boolean includes(String queue) {
			return this.queues == null || this.queues.contains(queue);
		}

	}

	/**
	 * The channel on which the trigger of migration V9 sends the queue name once per
	 * statement and queue.
	 */
	static final String READY_CHANNEL = "work_graph_ready";

	/** Ready items, and revoked tokens, whose waiting claims end. */
	@Override
	public List<String> channels() {
		return List.of(READY_CHANNEL, TokenMemory.REVOKED_CHANNEL);
	}

	@Override
	public void notified(String channel, String payload, Session session) {
		if (TokenMemory.REVOKED_CHANNEL.equals(channel)) {
			endWaitsOfRevoked(payload);
		}
		else {
			readyIn(payload);
		}
	}

	/**
	 * A revoked token's waiting claims end now (204); after '*' (every token), every
	 * waiting claim re-checks its token.
	 */
	private void endWaitsOfRevoked(String token) {
		try {
			endWaitsOf(UUID.fromString(token));
		}
		catch (IllegalArgumentException ex) {
			recheckAll();
		}
	}

	/** What became ready while nobody listened is found by a re-check. */
	@Override
	public void listening() {
		recheckAll();
	}

	@Override
	public void starting() {
		resumeWaiting();
	}

	/** Waiting claims answer 204 now instead of holding up the graceful shutdown. */
	@Override
	public void stopping() {
		stopWaiting();
	}

}
