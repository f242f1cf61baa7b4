package dev.workgraph.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.model.RetryPolicy;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Back-off (docs/http-api.md, "Failures and retries"): after a failure or an expiry with
 * attempts left, the item waits {@code min(max, base × 2^(attempts−1))} less up to 20 %
 * jitter before it may be claimed again; an item held for a human waits for no time.
 */
class BackoffTests extends LeaseTestSupport {

	private static final Map<String, Object> POLICY = Map.of("maxAttempts", 10, "backoffSeconds", 100,
			"maxBackoffSeconds", 250);

	@Test
	void failuresBackOffExponentiallyUpToTheMaximum() {
		UUID item = uuid(createItem(Map.of("title", "flaky upstream", "retry", POLICY)).path("id"));
		long[] expected = { 100, 200, 250, 250 };
		for (int attempt = 1; attempt <= expected.length; attempt++) {
			JsonNode claim = claim("worker-" + attempt);
			Instant before = databaseNow();
			Api.Response failed = fail(claim, Map.of("attempt", attempt), null);
			Instant after = databaseNow();
			assertOk(failed);
			JsonNode view = failed.body().path("item");
			assertThat(view.path("status").asString()).isEqualTo("blocked");
			assertThat(view.path("attempts").asInt()).isEqualTo(attempt);
			Instant notBefore = instant(view.path("blockers").path("notBefore"));
			long full = expected[attempt - 1];
			assertThat(notBefore).as("attempt %d", attempt)
				.isBetween(before.plusMillis(Math.round(full * 800.0)), after.plusSeconds(full));
			nothingToClaim();
			makeDue(item);
			assertThat(this.reaper.promoteDue()).isEqualTo(1);
		}
	}

	@Test
	void anExpiryWithAttemptsLeftBacksOffToo() {
		UUID item = uuid(createItem(Map.of("title", "slow", "retry", POLICY)).path("id"));
		expireLease(leaseId(claim("sleeper")));
		Instant before = databaseNow();
		assertThat(reap()).isEqualTo(1);
		JsonNode view = item(item);
		assertThat(view.path("status").asString()).isEqualTo("blocked");
		assertThat(view.path("attempts").asInt()).isEqualTo(1);
		assertThat(instant(view.path("blockers").path("notBefore"))).isBetween(before.plusSeconds(80),
				databaseNow().plusSeconds(100));
		nothingToClaim();
	}

	@Test
	void anItemHeldForAHumanWaitsForNoTime() {
		UUID item = uuid(createItem(Map.of("title", "poison", "retry",
				Map.of("maxAttempts", 1, "backoffSeconds", 100, "maxBackoffSeconds", 250)))
			.path("id"));
		assertOk(fail(claim("worker-1"), Map.of("n", 1), null));
		JsonNode view = item(item);
		assertThat(view.path("status").asString()).isEqualTo("blocked");
		assertThat(view.path("blockers").path("notBefore").isNull()).isTrue();
		assertThat(view.path("blockers").path("openAttentionRequests").asInt()).isEqualTo(1);
	}

	@Test
	void theCrashLoopGuardHoldsWithoutABackOff() {
		UUID item = uuid(createItem(Map.of("title", "crashes", "retry", Map.of("backoffSeconds", 0))).path("id"));
		for (int i = 0; i < 3; i++) {
			expireLease(leaseId(claim("worker-" + i)));
			assertThat(reap()).isEqualTo(1);
		}
		JsonNode view = item(item);
		assertThat(view.path("attentionRequests").get(0).path("kind").asString()).isEqualTo("crash_loop");
		assertThat(view.path("blockers").path("notBefore").isNull()).isTrue();
	}

	@Test
	void theBackOffDoublesIsCappedAndJitteredDownwardsOnly() {
		RetryPolicy policy = new RetryPolicy(10, 10L, 3600L);
		assertThat(policy.backoff(1, 0)).isEqualTo(Duration.ofSeconds(10));
		assertThat(policy.backoff(2, 0)).isEqualTo(Duration.ofSeconds(20));
		assertThat(policy.backoff(4, 0)).isEqualTo(Duration.ofSeconds(80));
		assertThat(policy.backoff(1, 0.999_999)).isEqualTo(Duration.ofMillis(8000));
		assertThat(policy.backoff(1000, 0)).isEqualTo(Duration.ofHours(1));
		assertThat(policy.backoff(1000, 0.5)).isEqualTo(Duration.ofMinutes(54));
		assertThat(new RetryPolicy(10, 0L, 3600L).backoff(7, 0.3)).isZero();
		assertThat(new RetryPolicy(1000, 86_400L, 2_592_000L).backoff(1000, 0)).isEqualTo(Duration.ofDays(30));
	}

	private Api.Response fail(JsonNode claim, Map<String, Object> error, Boolean retryable) {
		Map<String, Object> body = new java.util.HashMap<>(Map.of("epoch", epoch(claim), "error", error));
		if (retryable != null) {
			body.put("retryable", retryable);
		}
		return this.api.post("/leases/" + leaseId(claim) + "/fail", body);
	}

	private void makeDue(UUID item) {
		this.jdbc.sql("update work_items set not_before = now() - interval '1 millisecond' where id = :id")
			.param("id", item)
			.update();
	}

}
