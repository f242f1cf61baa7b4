package dev.workgraph.lease;

import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failures and retries (docs/http-api.md, "Failures and retries"): {@code failed} is an
 * outcome, failures and expiries are attempts, and used-up attempts hold the item for a
 * human instead of retrying it. The stale cases are in {@link FencingTests}.
 */
class FailureTests extends LeaseTestSupport {

	@Test
	void aFailureEndsTheLeaseWithItsErrorAndCountsAnAttempt() {
		UUID itemId = createItem("flaky");
		JsonNode claim = claim("worker-1");
		assertThat(claim.path("item").path("attempts").asInt()).isZero();
		Api.Response failed = fail(claim, Map.of("message", "upstream 503"), null);
		assertOk(failed);
		assertThat(failed.body().path("lease").path("outcome").asString()).isEqualTo("failed");
		assertThat(failed.body().path("lease").path("active").asBoolean()).isFalse();
		assertThat(failed.body().path("item").path("attempts").asInt()).isEqualTo(1);
		assertThat(failed.body().path("item").path("status").asString()).isEqualTo("ready");
		assertThat(count("select count(*) from lease_history where outcome = 'failed' and error->>'message' = "
				+ "'upstream 503' and item_id = '" + itemId + "'"))
			.isEqualTo(1);
		assertThat(epoch(claim("worker-2"))).isEqualTo(2);
	}

	@Test
	void itemsCarryARetryPolicyThatChildrenInherit() {
		JsonNode plain = createItem(Map.of("title", "defaults"));
		// The service's defaults, but for the back-off that the tests set to none.
		assertThat(plain.path("retry").toString())
			.isEqualTo("{\"maxAttempts\":10,\"backoffSeconds\":0,\"maxBackoffSeconds\":3600}");
		JsonNode parent = createItem(Map.of("title", "strict", "retry", Map.of("maxAttempts", 2)));
		assertThat(parent.path("retry").path("maxAttempts").asInt()).isEqualTo(2);
		assertThat(parent.path("retry").path("backoffSeconds").asInt()).isZero();
		JsonNode child = createItem(Map.of("title", "child", "parentId", parent.path("id").asString()));
		assertThat(child.path("retry")).isEqualTo(parent.path("retry"));
	}

	@Test
	void usedUpAttemptsHoldTheItemUntilAHumanLetsItRunAgain() {
		UUID itemId = UUID
			.fromString(createItem(Map.of("title", "poison", "retry", Map.of("maxAttempts", 2))).path("id").asString());
		assertOk(fail(claim("worker-1"), Map.of("n", 1), null));
		Api.Response last = fail(claim("worker-2"), Map.of("n", 2), null);
		assertOk(last);
		JsonNode item = last.body().path("item");
		assertThat(item.path("status").asString()).isEqualTo("blocked");
		assertThat(item.path("attempts").asInt()).isEqualTo(2);
		JsonNode request = item.path("attentionRequests").get(0);
		assertThat(request.path("kind").asString()).isEqualTo("retries_exhausted");
		assertThat(request.path("raisedBy").asString()).isEqualTo("system");
		assertThat(request.path("blocking").asBoolean()).isTrue();
		assertThat(request.path("question").asString()).contains("2 attempts", "resolve");
		assertThat(request.path("context").path("error").path("n").asInt()).isEqualTo(2);
		nothingToClaim();

		assertOk(resolve(UUID.fromString(request.path("id").asString()), "fixed the input"));
		JsonNode again = item(itemId);
		assertThat(again.path("status").asString()).isEqualTo("ready");
		assertThat(again.path("attempts").asInt()).isZero();
	}

	@Test
	void aFailureThatIsNotRetryableIsHeldAtOnce() {
		createItem("bad input");
		Api.Response failed = fail(claim("worker-1"), Map.of("message", "schema mismatch"), false);
		assertOk(failed);
		assertThat(failed.body().path("item").path("status").asString()).isEqualTo("blocked");
		assertThat(failed.body()
			.path("item")
			.path("attentionRequests")
			.get(0)
			.path("context")
			.path("retryable")
			.asBoolean()).isFalse();
		nothingToClaim();
	}

	@Test
	void expiriesAreAttemptsAndTheCrashLoopRequestHasItsKind() {
		UUID itemId = createItem("sleepy");
		for (int i = 0; i < 3; i++) {
			JsonNode claim = claim("worker-" + i);
			expireLease(leaseId(claim));
			assertThat(reap()).isEqualTo(1);
		}
		JsonNode item = item(itemId);
		assertThat(item.path("attempts").asInt()).isEqualTo(3);
		assertThat(item.path("attentionRequests")).hasSize(1);
		assertThat(item.path("attentionRequests").get(0).path("kind").asString()).isEqualTo("crash_loop");
	}

	@Test
	void anExpiryThatUsesUpTheLastAttemptHoldsTheItem() {
		UUID itemId = UUID.fromString(
				createItem(Map.of("title", "last try", "retry", Map.of("maxAttempts", 2))).path("id").asString());
		assertOk(fail(claim("worker-1"), Map.of("n", 1), null));
		expireLease(leaseId(claim("worker-2")));
		assertThat(reap()).isEqualTo(1);
		JsonNode item = item(itemId);
		assertThat(item.path("status").asString()).isEqualTo("blocked");
		assertThat(item.path("attentionRequests").get(0).path("kind").asString()).isEqualTo("retries_exhausted");
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"epoch\": 1}", "{\"epoch\": 1, \"error\": null}", "{\"epoch\": 1, \"error\": []}",
			"{\"epoch\": 1, \"error\": \"text\"}", "{\"epoch\": 1, \"error\": {}, \"retryable\": \"yes\"}",
			"{\"epoch\": 1, \"error\": {}, \"retryable\": 1}", "{\"epoch\": 1, \"error\": {\"k\": \"\\u0000\"}}",
			"{\"error\": {}}" })
	void hostileFailuresAreRefusedAndWriteNothing(String body) {
		createItem("target");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		Api.Response response = this.api.post("/leases/" + leaseId(claim) + "/fail", body);
		assertThat(response.status()).as(response.toString()).isIn(400, 422);
		assertThat(response.code()).isIn("validation_failed", "malformed_request");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void anErrorOver64KiBIsRefused() {
		createItem("chatty");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		assertProblem(fail(claim, Map.of("trace", "x".repeat(70_000)), null), 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"maxAttempts\": 0}", "{\"maxAttempts\": 1001}", "{\"maxAttempts\": \"3\"}",
			"{\"backoffSeconds\": -1}", "{\"backoffSeconds\": 86401}", "{\"maxBackoffSeconds\": 2592001}",
			"{\"maxAttempts\": 1.5}", "[]", "7" })
	void hostileRetryPoliciesAreRefused(String retry) {
		Map<String, Object> before = fingerprint();
		Api.Response response = this.api.post("/items", "{\"title\": \"x\", \"retry\": " + retry + "}");
		assertThat(response.status()).as(response.toString()).isIn(400, 422);
		assertThat(response.code()).isIn("validation_failed", "malformed_request");
		assertThat(fingerprint()).isEqualTo(before);
	}

	private Api.Response fail(JsonNode claim, Map<String, Object> error, Boolean retryable) {
		Map<String, Object> body = new java.util.HashMap<>(Map.of("epoch", epoch(claim), "error", error));
		if (retryable != null) {
			body.put("retryable", retryable);
		}
		return this.api.post("/leases/" + leaseId(claim) + "/fail", body);
	}

}
