package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BackoffTests {

	private final Backoff backoff = Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(5));

	@Test
	void ceilingDoublesFromInitialUpToMax() {
		assertThat(this.backoff.ceiling(1)).isEqualTo(Duration.ofMillis(100));
		assertThat(this.backoff.ceiling(2)).isEqualTo(Duration.ofMillis(200));
		assertThat(this.backoff.ceiling(3)).isEqualTo(Duration.ofMillis(400));
		assertThat(this.backoff.ceiling(6)).isEqualTo(Duration.ofMillis(3200));
		assertThat(this.backoff.ceiling(7)).isEqualTo(Duration.ofSeconds(5));
		assertThat(this.backoff.ceiling(1_000_000)).isEqualTo(Duration.ofSeconds(5));
		assertThat(this.backoff.ceiling(0)).isEqualTo(Duration.ofMillis(100));
	}

	@Test
	void hugeMaximaDoNotOverflow() {
		Backoff wide = Backoff.exponential(Duration.ofNanos(1), Duration.ofDays(365 * 100));
		assertThat(wide.ceiling(200)).isEqualTo(Duration.ofDays(365 * 100));
		assertThat(wide.ceiling(40)).isEqualTo(Duration.ofNanos(1L << 39));
	}

	@Test
	void fullJitterSpreadsWaitsOverTheWholeRangeBelowTheCeiling() {
		RandomGenerator random = new SplittableRandom(7);
		long below = 0;
		long above = 0;
		for (int i = 0; i < 10_000; i++) {
			Duration delay = this.backoff.delay(3, null, random);
			assertThat(delay).isBetween(Duration.ZERO, Duration.ofMillis(400));
			if (delay.compareTo(Duration.ofMillis(100)) < 0) {
				below++;
			}
			if (delay.compareTo(Duration.ofMillis(300)) > 0) {
				above++;
			}
		}
		// Uniform over [0, 400 ms]: about a quarter in each outer quarter.
		assertThat(below).isBetween(2_200L, 2_800L);
		assertThat(above).isBetween(2_200L, 2_800L);
	}

	@Test
	void retryAfterIsAFloorSpreadByAtMostTheInitialDelay() {
		RandomGenerator random = new SplittableRandom(11);
		for (int i = 0; i < 1_000; i++) {
			Duration delay = this.backoff.delay(1, Duration.ofSeconds(2), random);
			assertThat(delay).isBetween(Duration.ofSeconds(2), Duration.ofMillis(2_100));
		}
		// Even past the maximum: the service knows best how long it needs.
		assertThat(this.backoff.delay(1, Duration.ofSeconds(60), random))
			.isGreaterThanOrEqualTo(Duration.ofSeconds(60));
	}

	@Test
	void anAbsurdRetryAfterIsCapped() {
		Duration delay = this.backoff.delay(1, Duration.ofDays(3), new SplittableRandom(1));
		assertThat(delay).isBetween(Backoff.LONGEST_RETRY_AFTER, Backoff.LONGEST_RETRY_AFTER.plusMillis(100));
	}

	@Test
	void rejectsNonsense() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Backoff.exponential(Duration.ZERO, Duration.ofSeconds(1)));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Backoff.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)));
	}

}
