package dev.workgraph.change;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workgraph.notification.ChannelSubscriber;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The instance's one tail of the change log: a thread that reads new changes once, when
 * told that the sequencer published some (a notification on the instance's listening
 * session, or this instance's sequencer) or at least every second, and keeps the latest
 * {@value #KEPT} in memory. Every stream is served from that memory while it keeps up, so
 * a thousand idle subscribers hold no database connection and a published change costs
 * one query however many listen; only a subscriber that resumes from further back reads
 * the database itself, a page at a time, until it has caught up.
 *
 * <p>
 * While no stream of this instance has asked for changes for a minute, the tail reads
 * nothing: at thousands of changes a second, reading and keeping them for nobody cost a
 * busy instance a few per cent of its CPU. The next stream to ask wakes it, and reads
 * from the database what came in between, as one that resumes from further back does.
 */
@Component
class ChangeFeed implements SmartLifecycle, ChannelSubscriber {

	private static final Logger log = LoggerFactory.getLogger(ChangeFeed.class);

	/** Where the sequencer announces published changes (payload: the last seq). */
	static final String CHANNEL = ChangeTypes.PUBLISHED_CHANNEL;

	/** Changes kept in memory for subscribers that are a little behind. */
	static final int KEPT = 10_000;

	/** Changes read per query, by the tail and by a subscriber catching up. */
	static final int PAGE = 500;

	/** The tail reads at least this often, in case a notification was lost. */
	private static final long FALLBACK_MILLIS = 1000;

	/**
	 * Without a stream asking for this long, the tail stops reading. Longer than the
	 * keep-alive, at which a following stream asks again even when nothing happens.
	 */
	static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);

	private final ChangeLog log_;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition published = this.lock.newCondition();

	private final Condition signalled = this.lock.newCondition();

	private final ArrayDeque<Change> recent = new ArrayDeque<>();

	/** The last seq in memory; -1 until the tail has read the head. */
	private long head = -1;

	private boolean signal;

	private volatile boolean running;

	/** When a stream last asked for changes; idle at start. */
	private volatile long lastDemand = System.nanoTime() - IDLE_NANOS;

	private Thread thread;

	ChangeFeed(ChangeLog changeLog) {
		this.log_ = changeLog;
	}

	@Override
	public List<String> channels() {
		return List.of(CHANNEL);
	}

	@Override
	public void notified(String channel, String payload, Session session) {
		sequenced();
	}

	/** Listening (again): what was published while nobody listened is read now. */
	@Override
	public void listening() {
		sequenced();
	}

	/** New changes were published: the tail reads them now. */
	void sequenced() {
		this.lock.lock();
		try {
			this.signal = true;
			this.signalled.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void start() {
		this.running = true;
		this.thread = Thread.ofPlatform().name("change-feed").daemon().start(this::tailUntilStopped);
	}

	@Override
	public void stop() {
		this.running = false;
		this.lock.lock();
		try {
			this.published.signalAll();
			this.signalled.signal();
		}
		finally {
			this.lock.unlock();
		}
		Thread tail = this.thread;
		if (tail != null) {
			tail.interrupt();
			try {
				tail.join(Duration.ofSeconds(5));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** The last seq published, read from the database (where a new stream starts). */
	long currentHead() {
		return this.log_.head();
	}

	/**
	 * The changes after this seq, at most a page: from memory when it reaches back that
	 * far, else from the database. Empty when there is nothing newer yet.
	 */
	List<Change> after(long seq) {
		demanded();
		this.lock.lock();
		try {
			if (this.head >= 0 && seq >= this.head) {
				return List.of();
			}
			Change oldest = this.recent.peekFirst();
			if (oldest != null && oldest.seq() <= seq + 1) {
				List<Change> page = new ArrayList<>();
				for (Change change : this.recent) {
					if (change.seq() > seq) {
						page.add(change);
						if (page.size() == PAGE) {
							break;
						}
					}
				}
				return page;
			}
		}
		finally {
			this.lock.unlock();
		}
		return this.log_.after(seq, PAGE);
	}

	/**
	 * Waits until a change after this seq is published, the time is up, or the feed
	 * stops. Returns whether there is something newer.
	 */
	boolean awaitAfter(long seq, Duration timeout) throws InterruptedException {
		demanded();
		long nanos = timeout.toNanos();
		this.lock.lock();
		try {
			while (this.running && this.head <= seq) {
				if (nanos <= 0) {
					return false;
				}
				nanos = this.published.awaitNanos(nanos);
			}
			return this.running;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void tailUntilStopped() {
		while (this.running) {
			try {
				readNew();
				waitForSignal();
			}
			catch (InterruptedException ex) {
				break;
			}
			catch (RuntimeException ex) {
				if (!this.running) {
					break;
				}
				log.warn("The change feed could not read new changes, retrying: {}", ex.getMessage());
				try {
					TimeUnit.MILLISECONDS.sleep(FALLBACK_MILLIS);
				}
				catch (InterruptedException interrupted) {
					break;
				}
			}
		}
	}

	/** A stream asked: an idle tail starts reading again. */
	private void demanded() {
		boolean wasIdle = idle();
		this.lastDemand = System.nanoTime();
		if (wasIdle) {
			sequenced();
		}
	}

	boolean idle() {
		return System.nanoTime() - this.lastDemand > IDLE_NANOS;
	}

	private void readNew() {
		long from;
		this.lock.lock();
		try {
			if (idle()) {
				// Nobody reads: forget, and start again from the head when someone asks.
				this.head = -1;
				this.recent.clear();
				return;
			}
			from = this.head;
		}
		finally {
			this.lock.unlock();
		}
		if (from < 0) {
			// Starting: only what is published from now on is kept.
			publish(List.of(), this.log_.head());
			return;
		}
		List<Change> page;
		do {
			page = this.log_.after(from, PAGE);
			if (!page.isEmpty()) {
				from = page.getLast().seq();
				publish(page, from);
			}
		}
		while (page.size() == PAGE && this.running);
	}

	private void publish(List<Change> page, long newHead) {
		this.lock.lock();
		try {
			this.recent.addAll(page);
			while (this.recent.size() > KEPT) {
				this.recent.removeFirst();
			}
			this.head = Math.max(this.head, newHead);
			this.published.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void waitForSignal() throws InterruptedException {
		this.lock.lock();
		try {
			long nanos = TimeUnit.MILLISECONDS.toNanos(FALLBACK_MILLIS);
			while (!this.signal && this.running && nanos > 0) {
				nanos = this.signalled.awaitNanos(nanos);
			}
			this.signal = false;
		}
		finally {
			this.lock.unlock();
		}
	}

}
