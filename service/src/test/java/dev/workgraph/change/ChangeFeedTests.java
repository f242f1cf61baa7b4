package dev.workgraph.change;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The instance's tail of the change log reads nothing while no stream asks, and the first
 * stream to ask wakes it; what was published in between reaches that stream all the same.
 */
class ChangeFeedTests {

	private final CountingLog log = new CountingLog();

	private final ChangeFeed feed = new ChangeFeed(this.log);

	@AfterEach
	void stopFeed() {
		this.feed.stop();
	}

	@Test
	void anIdleFeedReadsNothingHoweverOftenChangesArePublished() throws InterruptedException {
		this.feed.start();
		for (int i = 0; i < 20; i++) {
			this.log.last = i;
			this.feed.sequenced();
			Thread.sleep(10);
		}
		Thread.sleep(100);
		assertThat(this.feed.idle()).isTrue();
		assertThat(this.log.queries.get()).isZero();
	}

	@Test
	void theFirstStreamWakesTheTailAndGetsWhatWasPublishedWhileIdle() throws InterruptedException {
		this.feed.start();
		this.log.last = 5;
		this.feed.sequenced();
		Thread.sleep(50);
		assertThat(this.log.queries.get()).isZero();

		// A stream that saw seq 2 before the instance went idle resumes.
		assertThat(this.feed.after(2)).extracting(Change::seq).containsExactly(3L, 4L, 5L);
		assertThat(this.feed.idle()).isFalse();
		// The woken tail reads the head (5) on its own thread. Published before that, 6
		// and 7 would count as what it starts from, not as changes it followed.
		assertThat(this.feed.awaitAfter(4, Duration.ofSeconds(5))).isTrue();

		// The tail follows again: the next published changes come from its memory.
		this.log.last = 7;
		this.feed.sequenced();
		assertThat(this.feed.awaitAfter(5, Duration.ofSeconds(5))).isTrue();
		int queries = this.log.queries.get();
		assertThat(this.feed.after(5)).extracting(Change::seq).containsExactly(6L, 7L);
		assertThat(this.log.queries.get()).as("served from the tail's memory").isEqualTo(queries);
	}

	/** A change log of {@code last} changes, counting the queries made of it. */
	private static final class CountingLog extends ChangeLog {

		volatile long last;

		final AtomicInteger queries = new AtomicInteger();

		CountingLog() {
			super(null);
		}

		@Override
		long head() {
			this.queries.incrementAndGet();
			return this.last;
		}

		@Override
		List<Change> after(long seq, int limit) {
			this.queries.incrementAndGet();
			return LongStream.rangeClosed(seq + 1, Math.min(this.last, seq + limit))
				.mapToObj((n) -> new Change(n, "item.ready", null, null, null, "default", Instant.EPOCH, "{}"))
				.toList();
		}

	}

}
