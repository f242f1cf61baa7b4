package dev.workgraph.retention;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The duty cycle's pause between batches, and the settings a service refuses. */
class RetentionPropertiesTests {

	private static RetentionProperties dutyCycle(double share) {
		return new RetentionProperties(Duration.ofDays(90), Duration.ofMinutes(1), 100, share);
	}

	@Test
	void aBatchIsFollowedByAPauseThatMakesItTheDutyCyclesShareOfTheTime() {
		assertThat(dutyCycle(0.1).pauseAfter(Duration.ofMillis(30))).isEqualTo(Duration.ofMillis(270));
		assertThat(dutyCycle(0.25).pauseAfter(Duration.ofMillis(40))).isEqualTo(Duration.ofMillis(120));
		// A slower batch (a busy database) waits longer after it.
		assertThat(dutyCycle(0.25).pauseAfter(Duration.ofMillis(400))).isEqualTo(Duration.ofMillis(1200));
	}

	@Test
	void aDutyCycleOfOneRemovesWithoutPausing() {
		assertThat(dutyCycle(1).pauseAfter(Duration.ofMillis(30))).isZero();
	}

	@Test
	void aDutyCycleOutsideZeroToOneIsRefused() {
		for (double share : new double[] { 0, -0.5, 1.5, Double.NaN }) {
			assertThatThrownBy(() -> dutyCycle(share)).isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("workgraph.retention.duty-cycle");
		}
	}

}
