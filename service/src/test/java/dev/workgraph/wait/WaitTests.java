package dev.workgraph.wait;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durable waits and events (docs/waits.md): a wait parks the item until its event comes,
 * an event kept for the retention matches a wait registered after it, a repeated event id
 * is one event, and a deadline applies its {@code onTimeout}. The stale cases are in
 * {@code FencingTests} (waits are one of its mutations).
 */
class WaitTests extends LeaseTestSupport {

	@Autowired
	WaitTimeouts timeouts;

	@Test
	void aWaitParksTheItemUntilItsEventComesAndTheNextHolderSeesThePayload() {
		UUID itemId = createItem("merge when CI passes");
		JsonNode claim = claim("worker-1");
		Api.Response waiting = waitFor(claim, "ci.finished", "pr-42", null, null);
		assertCreated(waiting);
		JsonNode wait = waiting.body().path("wait");
		assertThat(wait.path("status").asString()).isEqualTo("open");
		assertThat(wait.path("event").path("name").asString()).isEqualTo("ci.finished");
		assertThat(wait.path("event").path("key").asString()).isEqualTo("pr-42");
		assertThat(wait.path("onTimeout").asString()).isEqualTo("ready");
		assertThat(wait.path("timeoutAt").isNull()).isTrue();
		assertThat(wait.path("leaseId").asString()).isEqualTo(leaseId(claim).toString());
		assertThat(waiting.body().path("lease").path("outcome").asString()).isEqualTo("waiting");
		JsonNode item = waiting.body().path("item");
		assertThat(item.path("status").asString()).isEqualTo("blocked");
		assertThat(item.path("blockers").path("openWaits").asInt()).isEqualTo(1);
		nothingToClaim();

		Api.Response other = postEvent("ci.finished", "pr-41", null, Map.of("conclusion", "failure"));
		assertThat(other.status()).isEqualTo(202);
		assertThat(other.body().path("matchedWaits").asInt()).isZero();
		assertThat(status(itemId)).isEqualTo("blocked");

		Api.Response event = postEvent("ci.finished", "pr-42", "delivery-1", Map.of("conclusion", "success"));
		assertThat(event.status()).as(event.toString()).isEqualTo(202);
		assertThat(event.body().path("matchedWaits").asInt()).isEqualTo(1);
		assertThat(status(itemId)).isEqualTo("ready");

		JsonNode next = claim("worker-2");
		assertThat(epoch(next)).isEqualTo(2);
		JsonNode matched = next.path("item").path("waits").get(0);
		assertThat(matched.path("status").asString()).isEqualTo("matched");
		assertThat(matched.path("resolvedAt").isNull()).isFalse();
		JsonNode matchedEvent = matched.path("matchedEvent");
		assertThat(matchedEvent.path("eventId").asString()).isEqualTo(event.body().path("eventId").asString());
		assertThat(matchedEvent.path("id").asString()).isEqualTo("delivery-1");
		assertThat(matchedEvent.path("payload").path("conclusion").asString()).isEqualTo("success");
		assertThat(matchedEvent.path("receivedAt").asString()).endsWith("Z");
	}

	@Test
	void matchedAndTimedOutWaitsAreChangesOnTheStream() {
		createItem("matched");
		waitFor(claim("worker-1"), "ci.finished", "c-1", null, null);
		postEvent("ci.finished", "c-1", null, null);
		createItem("timed out");
		waitFor(claim("worker-2"), "ci.finished", "c-2", 60L, null);
		passDeadlines();
		this.timeouts.timeOutDue();
		createItem("matched at once");
		waitFor(claim("worker-3"), "ci.finished", "c-1", null, null);
		assertThat(this.jdbc
			.sql("select type || ' ' || (data ->> 'eventKey') from change_pending where type like 'wait.%' "
					+ "union all select type || ' ' || (data ->> 'eventKey') from changes where type like 'wait.%' "
					+ "order by 1")
			.query(String.class)
			.list()).containsExactly("wait.matched c-1", "wait.matched c-1", "wait.timed_out c-2");
	}

	@Test
	void anEventThatCameFirstMatchesAWaitRegisteredAfterItAtOnce() {
		UUID itemId = createItem("CI was quicker");
		Api.Response event = postEvent("ci.finished", "sha-abc", null, Map.of("conclusion", "success"));
		assertThat(event.body().path("matchedWaits").asInt()).isZero();
		JsonNode claim = claim("worker-1");
		Api.Response waiting = waitFor(claim, "ci.finished", "sha-abc", 60L, "cancel");
		assertCreated(waiting);
		assertThat(waiting.body().path("wait").path("status").asString()).isEqualTo("matched");
		assertThat(waiting.body().path("wait").path("matchedEvent").path("payload").path("conclusion").asString())
			.isEqualTo("success");
		assertThat(waiting.body().path("lease").path("outcome").asString()).isEqualTo("waiting");
		assertThat(waiting.body().path("item").path("status").asString()).isEqualTo("ready");
		assertThat(waiting.body().path("item").path("blockers").path("openWaits").asInt()).isZero();
		assertThat(itemId(claim("worker-2"))).isEqualTo(itemId);
	}

	@Test
	void theLatestRetainedEventMatches() {
		postEvent("deploy.done", "prod", null, Map.of("version", 1));
		postEvent("deploy.done", "prod", null, Map.of("version", 2));
		createItem("after two deploys");
		Api.Response waiting = waitFor(claim("worker-1"), "deploy.done", "prod", null, null);
		assertThat(waiting.body().path("wait").path("matchedEvent").path("payload").path("version").asInt())
			.isEqualTo(2);
	}

	@Test
	void anEventPastItsRetentionIsForgottenAndMatchesNothing() {
		postEvent("ci.finished", "old", null, null);
		this.jdbc.sql("update events set received_at = now() - interval '25 hours'").update();
		createItem("too late for the old event");
		Api.Response waiting = waitFor(claim("worker-1"), "ci.finished", "old", null, null);
		assertThat(waiting.body().path("wait").path("status").asString()).isEqualTo("open");
		assertThat(this.timeouts.forgetExpiredEvents()).isEqualTo(1);
		assertThat(count("select count(*) from events")).isZero();
	}

	@Test
	void theSameEventIdTwiceIsOneEvent() {
		createItem("one delivery");
		waitFor(claim("worker-1"), "ci.finished", "pr-7", null, null);
		Api.Response first = postEvent("ci.finished", "pr-7", "gh-delivery-99", Map.of("n", 1));
		Api.Response again = postEvent("ci.finished", "pr-7", "gh-delivery-99", Map.of("n", 2));
		assertThat(first.status()).isEqualTo(202);
		assertThat(again.status()).isEqualTo(200);
		assertThat(again.body().path("eventId").asString()).isEqualTo(first.body().path("eventId").asString());
		assertThat(again.body().path("matchedWaits").asInt()).isEqualTo(1);
		assertThat(count("select count(*) from events")).isEqualTo(1);
		// A wait registered now is matched by the one event, with its first payload.
		createItem("second waiter");
		Api.Response waiting = waitFor(claim("worker-2"), "ci.finished", "pr-7", null, null);
		assertThat(waiting.body().path("wait").path("matchedEvent").path("payload").path("n").asInt()).isEqualTo(1);
	}

	@Test
	void oneEventMatchesEveryOpenWaitOfItsNameAndKey() {
		List<UUID> items = List.of(createItem("a"), createItem("b"), createItem("c"));
		for (int i = 0; i < items.size(); i++) {
			assertCreated(waitFor(claim("worker-" + i), "release.cut", "1.4", null, null));
		}
		Api.Response event = postEvent("release.cut", "1.4", null, null);
		assertThat(event.body().path("matchedWaits").asInt()).isEqualTo(3);
		items.forEach((id) -> assertThat(status(id)).isEqualTo("ready"));
		assertThat(item(items.getFirst()).path("waits").get(0).path("matchedEvent").path("payload").isObject())
			.isTrue();
	}

	@Test
	void aDeadlineWithReadyClearsTheBlocker() {
		UUID itemId = createItem("wait at most a minute");
		JsonNode waiting = waitFor(claim("worker-1"), "ci.finished", "slow", 60L, null).body();
		assertThat(instant(waiting.path("wait").path("timeoutAt")))
			.isAfter(instant(waiting.path("wait").path("createdAt")).plusSeconds(59));
		assertThat(this.timeouts.timeOutDue()).isZero();
		passDeadlines();
		assertThat(this.timeouts.timeOutDue()).isEqualTo(1);
		assertThat(status(itemId)).isEqualTo("ready");
		JsonNode wait = item(itemId).path("waits").get(0);
		assertThat(wait.path("status").asString()).isEqualTo("timed_out");
		assertThat(wait.path("matchedEvent").isNull()).isTrue();
		// The event that comes later matches nothing.
		assertThat(postEvent("ci.finished", "slow", null, null).body().path("matchedWaits").asInt()).isZero();
	}

	@Test
	void aDeadlineWithCancelCancelsTheItem() {
		UUID itemId = createItem("cancel if nobody answers");
		waitFor(claim("worker-1"), "approval", "change-9", 60L, "cancel");
		passDeadlines();
		assertThat(this.timeouts.timeOutDue()).isEqualTo(1);
		JsonNode item = item(itemId);
		assertThat(item.path("status").asString()).isEqualTo("cancelled");
		assertThat(item.path("cancelReason").asString()).contains("approval").contains("timed out");
		assertThat(item.path("waits").get(0).path("status").asString()).isEqualTo("timed_out");
	}

	@Test
	void aDeadlineWithAskHoldsTheItemForAHuman() {
		UUID itemId = createItem("ask when it is late");
		waitFor(claim("worker-1"), "approval", "change-10", 60L, "ask");
		passDeadlines();
		assertThat(this.timeouts.timeOutDue()).isEqualTo(1);
		JsonNode item = item(itemId);
		assertThat(item.path("status").asString()).isEqualTo("blocked");
		assertThat(item.path("blockers").path("openWaits").asInt()).isZero();
		assertThat(item.path("blockers").path("openAttentionRequests").asInt()).isEqualTo(1);
		JsonNode request = item.path("attentionRequests").get(0);
		assertThat(request.path("kind").asString()).isEqualTo("wait_timed_out");
		assertThat(request.path("raisedBy").asString()).isEqualTo("system");
		assertThat(request.path("question").asString()).contains("approval").contains("change-10");
		assertThat(request.path("context").path("eventKey").asString()).isEqualTo("change-10");
		assertOk(resolve(uuid(request.path("id")), "go ahead without it"));
		assertThat(status(itemId)).isEqualTo("ready");
	}

	@Test
	void cancellingAWaitingItemCancelsItsWait() {
		UUID itemId = createItem("cancelled while waiting");
		waitFor(claim("worker-1"), "ci.finished", "pr-9", null, null);
		assertOk(operatorCancel(itemId, "not needed"));
		assertThat(item(itemId).path("waits").get(0).path("status").asString()).isEqualTo("cancelled");
		assertThat(postEvent("ci.finished", "pr-9", null, null).body().path("matchedWaits").asInt()).isZero();
		assertThat(status(itemId)).isEqualTo("cancelled");
	}

	@Test
	void theWaitingWorkerIsPreferredWhenTheItemIsReadyAgain() {
		UUID waited = createItem("mine again", "priority", 0);
		waitFor(claim("worker-1"), "ci.finished", "pr-5", null, null);
		createItem("older ready item", "priority", 0);
		postEvent("ci.finished", "pr-5", null, null);
		assertThat(itemId(claim("worker-1"))).isEqualTo(waited);
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"epoch\":1}", "{\"epoch\":1,\"event\":null}", "{\"epoch\":1,\"event\":{}}",
			"{\"epoch\":1,\"event\":{\"name\":\"\",\"key\":\"k\"}}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"\"}}", "{\"epoch\":1,\"event\":{\"name\":\"n\"}}",
			"{\"epoch\":1,\"event\":{\"name\":7,\"key\":\"k\"}}",
			"{\"epoch\":1,\"event\":{\"name\":\"a\\u0000b\",\"key\":\"k\"}}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"\\ud800\"}}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\",\"extra\":1}}", "{\"epoch\":1,\"event\":\"n/k\"}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\"},\"timeoutSeconds\":0}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\"},\"timeoutSeconds\":31536001}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\"},\"timeoutSeconds\":-5}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\"},\"timeoutSeconds\":1.5}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\"},\"timeoutSeconds\":\"60\"}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\"},\"timeoutSeconds\":99999999999999999999}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\"},\"onTimeout\":\"later\"}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\"},\"onTimeout\":\"READY\"}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\"},\"onTimeout\":7}",
			"{\"event\":{\"name\":\"n\",\"key\":\"k\"}}",
			"{\"epoch\":1,\"event\":{\"name\":\"n\",\"key\":\"k\"},\"x\":1}" })
	void aBadWaitIsRefusedAndWritesNothing(String body) {
		createItem("hostile");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		Api.Response response = this.api.post("/leases/" + leaseId(claim) + "/waits", body);
		assertThat(response.status()).as(response.toString()).isIn(400, 422);
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void namesAndKeysAreBoundedInCodePoints() {
		createItem("long key");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		assertProblem(waitFor(claim, "n".repeat(201), "k", null, null), 422, "validation_failed");
		assertProblem(waitFor(claim, "n", "k".repeat(501), null, null), 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
		assertCreated(waitFor(claim, "😀".repeat(200), "😀".repeat(500), 31_536_000L, null));
		assertProblem(postEvent("n".repeat(201), "k", null, null), 422, "validation_failed");
		assertThat(postEvent("😀".repeat(200), "😀".repeat(500), "😀".repeat(200), null).body()
			.path("matchedWaits")
			.asInt()).isEqualTo(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "{}", "{\"name\":\"n\"}", "{\"key\":\"k\"}", "{\"name\":\"\",\"key\":\"k\"}",
			"{\"name\":\"n\",\"key\":\"k\",\"id\":\"\"}", "{\"name\":\"n\",\"key\":\"k\",\"id\":7}",
			"{\"name\":\"n\",\"key\":\"k\",\"payload\":[1]}", "{\"name\":\"n\",\"key\":\"k\",\"payload\":\"x\"}",
			"{\"name\":\"n\",\"key\":\"k\",\"payload\":{\"a\":\"\\u0000\"}}",
			"{\"name\":\"n\",\"key\":\"k\",\"payload\":{\"\\ud800\":1}}", "{\"name\":\"n\",\"key\":\"k\",\"more\":1}",
			"{\"name\":null,\"key\":\"k\"}", "[]", "not json" })
	void aBadEventIsRefusedAndWritesNothing(String body) {
		createItem("bystander");
		waitFor(claim("worker-1"), "n", "k", null, null);
		Map<String, Object> before = fingerprint();
		Api.Response response = this.api.post("/events", body);
		assertThat(response.status()).as(response.toString()).isIn(400, 415, 422);
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void aPayloadOver64KibIsRefused() {
		String big = "x".repeat(65_537);
		assertProblem(postEvent("n", "k", null, Map.of("big", big)), 422, "validation_failed");
		assertThat(count("select count(*) from events")).isZero();
	}

	private void passDeadlines() {
		this.jdbc.sql("update waits set timeout_at = now() - interval '1 millisecond' where status = 'open'").update();
	}

	Api.Response waitFor(JsonNode claim, String name, String key, Long timeoutSeconds, String onTimeout) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("epoch", epoch(claim));
		body.put("event", Map.of("name", name, "key", key));
		if (timeoutSeconds != null) {
			body.put("timeoutSeconds", timeoutSeconds);
		}
		if (onTimeout != null) {
			body.put("onTimeout", onTimeout);
		}
		return this.api.post("/leases/" + leaseId(claim) + "/waits", body);
	}

	Api.Response postEvent(String name, String key, String id, Map<String, Object> payload) {
		return postEvent(this.api, name, key, id, payload);
	}

	static Api.Response postEvent(Api api, String name, String key, String id, Map<String, Object> payload) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("name", name);
		body.put("key", key);
		if (id != null) {
			body.put("id", id);
		}
		if (payload != null) {
			body.put("payload", payload);
		}
		return api.post("/events", body);
	}

}
