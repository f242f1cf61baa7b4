package dev.workgraph.change;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.workgraph.sql.TrimBetweenPasses;
import dev.workgraph.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Numbers committed changes (see {@link ChangeOutbox}) every
 * {@code workgraph.outbox.sequencer-interval}, on a thread of its own, and trims changes
 * past the retention between its passes, a batch after each pass while there are any, so
 * that trimming never holds up the numbering for more than one batch (a whole backlog
 * trimmed at once stalled the stream for its duration). Every instance runs one; the
 * advisory lock lets one of them work at a time, so any instance may die without the
 * stream stopping. A pass holds one pool connection for a few milliseconds.
 */
@Component
class ChangeSequencer implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(ChangeSequencer.class);

	/** Changes trimmed per transaction. */
	static final int TRIM_BATCH = 1000;

	/** After a failed pass (the database away), wait this long before the next. */
	private static final Duration FAILURE_PAUSE = Duration.ofSeconds(1);

	private final ChangeOutbox outbox;

	private final Transactions transactions;

	private final ChangeProperties properties;

	private final ChangeFeed feed;

	private volatile boolean running;

	private Thread thread;

	private final TrimBetweenPasses trimming;

	ChangeSequencer(ChangeOutbox outbox, Transactions transactions, ChangeProperties properties, ChangeFeed feed) {
		this.outbox = outbox;
		this.transactions = transactions;
		this.properties = properties;
		this.feed = feed;
		this.trimming = new TrimBetweenPasses(properties.trimInterval(), TRIM_BATCH, this::trimBatch);
	}

	@Override
	public void start() {
		this.running = true;
		if (this.properties.sequencerInterval().isPositive()) {
			this.thread = Thread.ofPlatform().name("change-sequencer").daemon().start(this::runUntilStopped);
		}
	}

	@Override
	public void stop() {
		this.running = false;
		Thread sequencer = this.thread;
		if (sequencer != null) {
			sequencer.interrupt();
			try {
				sequencer.join(Duration.ofSeconds(5));
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

	/** Numbers what has committed; returns the last seq handed out, or -1 for none. */
	long pass() {
		long last = this.transactions.inTransaction(this.outbox::sequence);
		if (last > 0) {
			// This instance's own subscribers need not wait for the notification.
			this.feed.sequenced();
		}
		return last;
	}

	/** One batch of changes past the retention trimmed; returns how many. */
	private int trimBatch() {
		return this.outbox.trim(this.properties.retention(), TRIM_BATCH);
	}

	private void runUntilStopped() {
		long interval = this.properties.sequencerInterval().toMillis();
		while (this.running) {
			long pause = interval;
			try {
				pass();
				this.trimming.step();
			}
			catch (RuntimeException ex) {
				if (!this.running) {
					break;
				}
				log.warn("The change sequencer failed, retrying in {}: {}", FAILURE_PAUSE, ex.getMessage());
				pause = FAILURE_PAUSE.toMillis();
			}
			try {
				TimeUnit.MILLISECONDS.sleep(pause);
			}
			catch (InterruptedException ex) {
				break;
			}
		}
	}

}
