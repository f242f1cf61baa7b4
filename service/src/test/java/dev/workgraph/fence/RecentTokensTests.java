package dev.workgraph.fence;

import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The memory of signed tokens keeps two generations and drops the oldest whole. */
class RecentTokensTests {

	private final Instant now = Instant.parse("2026-12-06T12:00:00Z");

	@Test
	void aTokenIsFoundWhileItsGenerationOrTheNextIsCurrentAndForgottenAfter() {
		RecentTokens recent = new RecentTokens(3);
		RecentTokens.Signed first = signed(1);
		recent.remember(first, "t1");
		recent.remember(signed(2), "t2");
		assertThat(recent.find(first)).isEqualTo("t1");
		recent.remember(signed(3), "t3"); // the first generation is full: it becomes the
											// previous one
		assertThat(recent.find(first)).isEqualTo("t1");
		recent.remember(signed(4), "t4");
		recent.remember(signed(5), "t5");
		recent.remember(signed(6), "t6"); // full again: the first generation is dropped
		assertThat(recent.find(first)).isNull();
		assertThat(recent.find(signed(4))).isEqualTo("t4");
		assertThat(recent.find(signed(6))).isEqualTo("t6");
	}

	@Test
	void anythingTheTokenSaysDifferentIsAnotherToken() {
		RecentTokens recent = new RecentTokens(100);
		RecentTokens.Signed signed = signed(1);
		recent.remember(signed, "t1");
		assertThat(recent.find(new RecentTokens.Signed("k2", signed.leaseId(), signed.itemId(), 1, "w", this.now,
				this.now.plusSeconds(60))))
			.as("another key")
			.isNull();
		assertThat(recent.find(new RecentTokens.Signed("k1", signed.leaseId(), signed.itemId(), 1, "w", this.now,
				this.now.plusSeconds(61))))
			.as("another expiry")
			.isNull();
	}

	private RecentTokens.Signed signed(long epoch) {
		return new RecentTokens.Signed("k1", new UUID(0, epoch), new UUID(1, 1), epoch, "w", this.now,
				this.now.plusSeconds(60));
	}

}
