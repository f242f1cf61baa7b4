package dev.workgraph.client.worker;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The lease clock works on differences of monotonic readings only: these tests start it
 * near {@code Long.MAX_VALUE}, where {@code System.nanoTime()} may wrap around.
 */
class LeaseClockTests {

	private static final long MS = 1_000_000L;

	private static final long START = Long.MAX_VALUE - 1_000 * MS;

	@Test
	void renewalIsDueAThirdOfTheLengthAfterTheClaimWasSent() {
		LeaseClock clock = new LeaseClock(START, Duration.ofSeconds(3));
		assertThat(clock.untilRenewal(START)).isEqualTo(1_000 * MS);
		assertThat(clock.untilRenewal(START + 400 * MS)).isEqualTo(600 * MS);
		assertThat(clock.interval()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void theDeadlineIsSendTimePlusLengthAcrossTheWrapAround() {
		LeaseClock clock = new LeaseClock(START, Duration.ofSeconds(3));
		assertThat(clock.expired(START + 2_999 * MS)).isFalse();
		assertThat(clock.remaining(START + 2_999 * MS)).isEqualTo(MS);
		// START + 3 s overflows a long: still exactly at the deadline.
		assertThat(clock.expired(START + 3_000 * MS)).isTrue();
		assertThat(clock.remaining(START + 4_000 * MS)).isEqualTo(-1_000 * MS);
	}

	@Test
	void aSuccessfulRenewalMovesEverythingToItsSendTime() {
		LeaseClock clock = new LeaseClock(START, Duration.ofSeconds(3));
		clock.confirmed(START + 1_000 * MS, Duration.ofSeconds(3));
		assertThat(clock.remaining(START + 1_000 * MS)).isEqualTo(3_000 * MS);
		assertThat(clock.untilRenewal(START + 1_000 * MS)).isEqualTo(1_000 * MS);
		assertThat(clock.expired(START + 3_500 * MS)).isFalse();
	}

	@Test
	void aLateAnswerToAnOlderRenewalNeverMovesTheDeadlineBack() {
		LeaseClock clock = new LeaseClock(START, Duration.ofSeconds(3));
		clock.confirmed(START + 2_000 * MS, Duration.ofSeconds(3));
		clock.confirmed(START + 1_000 * MS, Duration.ofSeconds(3));
		assertThat(clock.remaining(START + 2_000 * MS)).isEqualTo(3_000 * MS);
	}

	@Test
	void theServiceMayGrantAnotherLength() {
		LeaseClock clock = new LeaseClock(START, Duration.ofSeconds(3));
		clock.confirmed(START + 100 * MS, Duration.ofSeconds(60));
		assertThat(clock.interval()).isEqualTo(Duration.ofSeconds(20));
		assertThat(clock.remaining(START + 100 * MS)).isEqualTo(60_000 * MS);
	}

	@Test
	void aLengthMustBePositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseClock(START, Duration.ZERO));
	}

}
