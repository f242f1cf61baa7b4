package dev.workgraph.client;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RetryAfterTests {

	private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

	@Test
	void secondsAreSeconds() {
		assertThat(RetryAfter.parse("1", NOW)).isEqualTo(Duration.ofSeconds(1));
		assertThat(RetryAfter.parse(" 120 ", NOW)).isEqualTo(Duration.ofSeconds(120));
		assertThat(RetryAfter.parse("0", NOW)).isEqualTo(Duration.ZERO);
	}

	@Test
	void anHttpDateIsTheTimeUntilThen() {
		assertThat(RetryAfter.parse("Mon, 30 Nov 2026 12:00:07 GMT", NOW)).isEqualTo(Duration.ofSeconds(7));
	}

	@Test
	void aDateInThePastMeansNow() {
		assertThat(RetryAfter.parse("Mon, 30 Nov 2026 11:59:00 GMT", NOW)).isEqualTo(Duration.ZERO);
	}

	@Test
	void anythingElseIsNoAdvice() {
		assertThat(RetryAfter.parse(null, NOW)).isNull();
		assertThat(RetryAfter.parse("", NOW)).isNull();
		assertThat(RetryAfter.parse("-5", NOW)).isNull();
		assertThat(RetryAfter.parse("1.5", NOW)).isNull();
		assertThat(RetryAfter.parse("soon", NOW)).isNull();
		assertThat(RetryAfter.parse("99999999999999999999999", NOW)).isNull();
	}

}
