package dev.workgraph.attention;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.Api;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attention requests (docs/http-api.md, "Ask for attention", "Attention requests inbox"):
 * blocking ones end the lease and hold the item until answered, non-blocking ones are
 * only recorded; answering recomputes readiness; the operator's inbox lists them newest
 * first.
 */
class AttentionRequestTests extends LeaseTestSupport {

	@Test
	void blockingRequestEndsTheLeaseAndHoldsTheItem() {
		UUID id = createItem("migrate the billing tables");
		JsonNode claim = claim("worker-1");
		Api.Response raised = this.api.post("/leases/" + leaseId(claim) + "/attention-requests", Map.of("epoch", 1,
				"question", "Drop the legacy column?", "context", Map.of("table", "invoices", "rows", List.of(1, 2))));
		assertCreated(raised);
		JsonNode request = raised.body();
		assertThat(raised.header("Location")).isEqualTo("/attention-requests/" + request.path("id").asString());
		assertThat(request.path("itemId").asString()).isEqualTo(id.toString());
		assertThat(request.path("itemTitle").asString()).isEqualTo("migrate the billing tables");
		assertThat(request.path("leaseId").asString()).isEqualTo(leaseId(claim).toString());
		assertThat(request.path("workerId").asString()).isEqualTo("worker-1");
		assertThat(request.path("epoch").asLong()).isEqualTo(1);
		assertThat(request.path("raisedBy").asString()).isEqualTo("worker");
		assertThat(request.path("blocking").asBoolean()).as("blocking by default").isTrue();
		assertThat(request.path("question").asString()).isEqualTo("Drop the legacy column?");
		assertThat(request.path("context").path("table").asString()).isEqualTo("invoices");
		assertThat(request.path("context").path("rows")).hasSize(2);
		assertThat(request.path("status").asString()).isEqualTo("open");
		assertThat(instant(request.path("openedAt"))).isNotNull();
		assertThat(request.path("resolution").isNull()).isTrue();
		assertThat(request.path("resolvedBy").isNull()).isTrue();
		assertThat(request.path("resolvedAt").isNull()).isTrue();

		JsonNode lease = lease(leaseId(claim));
		assertThat(lease.path("outcome").asString()).isEqualTo("attention_requested");
		assertThat(lease.path("endedAt").asString()).isEqualTo(request.path("openedAt").asString());
		JsonNode item = item(id);
		assertThat(item.path("status").asString()).isEqualTo("blocked");
		assertThat(item.path("blockers").path("openAttentionRequests").asInt()).isEqualTo(1);
		assertThat(item.path("lease").isNull()).isTrue();
		assertThat(item.path("attentionRequests")).hasSize(1);
		assertThat(item.path("attentionRequests").get(0)).isEqualTo(request);
		nothingToClaim();
		assertProblem(complete(claim), 409, "lease_ended");
	}

	@Test
	void nonBlockingRequestLeavesTheLeaseActiveAndCanBeAnsweredAfterCompletion() {
		UUID id = createItem("write the report");
		JsonNode claim = claim("worker-1");
		Api.Response raised = askForAttention(claim, "FYI: the numbers look off", false);
		assertCreated(raised);
		assertThat(raised.body().path("blocking").asBoolean()).isFalse();
		JsonNode item = item(id);
		assertThat(item.path("status").asString()).isEqualTo("leased");
		assertThat(item.path("blockers").path("openAttentionRequests").asInt()).isZero();
		assertThat(item.path("lease").path("active").asBoolean()).isTrue();
		assertOk(renew(claim, 60));
		assertCreated(askForAttention(claim, "and another thing", false));
		assertOk(complete(claim, Map.of("report", "done")));
		assertThat(inbox("?status=open&itemId=" + id)).hasSize(2);
		// Answering a question about a terminal item is allowed; it changes nothing else.
		Api.Response resolved = resolve(id(raised), "thanks, fixed upstream");
		assertOk(resolved);
		assertThat(resolved.body().path("status").asString()).isEqualTo("resolved");
		assertThat(status(id)).isEqualTo("completed");
	}

	@Test
	void resolvingMakesTheItemReadyAndTheNextClaimantSeesTheAnswer() {
		UUID id = createItem("pick a colour");
		JsonNode claim = claim("worker-1");
		UUID request = id(askForAttention(claim, "Blue or green?", true));
		Api.Response resolved = this.api.post("/attention-requests/" + request + "/resolve",
				Map.of("resolution", "Green.", "resolvedBy", "designer-dee"));
		assertOk(resolved);
		JsonNode answer = resolved.body();
		assertThat(answer.path("id").asString()).isEqualTo(request.toString());
		assertThat(answer.path("status").asString()).isEqualTo("resolved");
		assertThat(answer.path("resolution").asString()).isEqualTo("Green.");
		assertThat(answer.path("resolvedBy").asString()).isEqualTo("designer-dee");
		assertThat(instant(answer.path("resolvedAt"))).isAfterOrEqualTo(instant(answer.path("openedAt")));
		JsonNode item = item(id);
		assertThat(item.path("status").asString()).isEqualTo("ready");
		assertThat(item.path("blockers").path("openAttentionRequests").asInt()).isZero();
		assertThat(item.path("readySince").asString()).isEqualTo(answer.path("resolvedAt").asString());
		JsonNode next = claim("worker-2");
		assertThat(itemId(next)).isEqualTo(id);
		assertThat(epoch(next)).isEqualTo(2);
		JsonNode seen = next.path("item").path("attentionRequests").get(0);
		assertThat(seen.path("question").asString()).isEqualTo("Blue or green?");
		assertThat(seen.path("resolution").asString()).isEqualTo("Green.");
		assertThat(seen.path("resolvedBy").asString()).isEqualTo("designer-dee");
	}

	@Test
	void resolvingMakesTheItemReadyOnlyOnceEveryOtherBlockerIsClear() {
		UUID id = createItem("assemble");
		JsonNode claim = claim("worker-1");
		UUID child = createItem("part", "parentId", id, "queue", "parts");
		UUID dependency = createItem("tooling", "queue", "tooling");
		assertCreated(this.api.post("/items/" + id + "/dependencies", Map.of("dependsOn", dependency)));
		UUID request = id(askForAttention(claim, "Which glue?", true));
		assertThat(blockers(id)).containsExactly(1, 1, 1);
		assertThat(status(id)).isEqualTo("blocked");

		assertOk(resolve(request, "epoxy"));
		assertThat(blockers(id)).containsExactly(1, 1, 0);
		assertThat(status(id)).isEqualTo("blocked");
		assertOk(complete(claimFrom("parts", "worker-2")));
		assertThat(blockers(id)).containsExactly(1, 0, 0);
		assertThat(status(id)).isEqualTo("blocked");
		assertOk(complete(claimFrom("tooling", "worker-3")));
		assertThat(blockers(id)).containsExactly(0, 0, 0);
		assertThat(status(id)).isEqualTo("ready");
		assertThat(status(child)).isEqualTo("completed");
	}

	@Test
	void lastBlockerToClearMayBeTheAnswer() {
		UUID id = createItem("assemble");
		JsonNode claim = claim("worker-1");
		createItem("part", "parentId", id, "queue", "parts");
		UUID request = id(askForAttention(claim, "Which glue?", true));
		assertOk(complete(claimFrom("parts", "worker-2")));
		assertThat(status(id)).isEqualTo("blocked");
		assertOk(resolve(request, "epoxy"));
		assertThat(status(id)).isEqualTo("ready");
	}

	@Test
	void resolvingTwiceIsRefusedAndChangesNothing() {
		createItem("task");
		UUID request = id(askForAttention(claim("worker-1"), "Sure?", true));
		assertOk(resolve(request, "yes"));
		Map<String, Object> before = fingerprint();
		Api.Response again = this.api.post("/attention-requests/" + request + "/resolve",
				Map.of("resolution", "no, wait", "resolvedBy", "someone-else"));
		assertProblem(again, 409, "already_resolved");
		assertThat(again.body().path("detail").asString()).contains("operator-ann");
		assertThat(fingerprint()).isEqualTo(before);
		JsonNode stored = this.api.get("/attention-requests/" + request).body();
		assertThat(stored.path("resolution").asString()).isEqualTo("yes");
	}

	@Test
	void concurrentResolutionsOfOneRequestSucceedExactlyOnce() {
		for (int round = 0; round < 10; round++) {
			String queue = "round-" + round;
			UUID id = createItem("task " + round, "queue", queue);
			UUID request = id(askForAttention(claimFrom(queue, "worker-1"), "Sure?", true));
			List<Api.Response> responses = Concurrently.run(8,
					(i) -> this.api.post("/attention-requests/" + request + "/resolve",
							Map.of("resolution", "answer " + i, "resolvedBy", "operator-" + i)));
			assertThat(responses).filteredOn((response) -> response.status() == 200).hasSize(1);
			assertThat(responses).filteredOn((response) -> response.status() != 200)
				.allSatisfy((response) -> assertProblem(response, 409, "already_resolved"));
			JsonNode item = item(id);
			assertThat(item.path("blockers").path("openAttentionRequests").asInt()).isZero();
			assertThat(item.path("status").asString()).isEqualTo("ready");
		}
	}

	@Test
	void cancellingTheItemResolvesItsOpenRequestsOnBehalfOfTheSystem() {
		UUID asked = createItem("asked", "queue", "a");
		UUID blocking = id(askForAttention(claimFrom("a", "worker-1"), "blocked on this", true));
		UUID working = createItem("working", "queue", "b");
		JsonNode claim = claimFrom("b", "worker-2");
		UUID noted = id(askForAttention(claim, "just noting", false));
		assertOk(operatorCancel(asked, "no longer wanted"));
		assertOk(cancelLease(claim, "giving up"));
		for (UUID request : List.of(blocking, noted)) {
			JsonNode resolved = this.api.get("/attention-requests/" + request).body();
			assertThat(resolved.path("status").asString()).isEqualTo("resolved");
			assertThat(resolved.path("resolvedBy").asString()).isEqualTo("system");
			assertThat(resolved.path("resolution").asString()).containsIgnoringCase("cancelled");
			assertProblem(resolve(request, "too late"), 409, "already_resolved");
		}
		assertThat(item(asked).path("blockers").path("openAttentionRequests").asInt()).isZero();
		assertThat(status(working)).isEqualTo("cancelled");
	}

	@Test
	void staleHolderCannotAskForAttention() {
		UUID id = createItem("task");
		JsonNode first = claim("worker-1");
		assertOk(release(first));
		JsonNode second = claim("worker-1");
		Map<String, Object> before = fingerprint();
		for (boolean blocking : List.of(true, false)) {
			Api.Response oldLease = askForAttention(first, "still mine?", blocking);
			assertProblem(oldLease, 409, "lease_ended");
			Api.Response oldEpoch = this.api.post("/leases/" + leaseId(second) + "/attention-requests",
					Map.of("epoch", 1, "question", "still mine?", "blocking", blocking));
			assertProblem(oldEpoch, 409, "epoch_mismatch");
			assertThat(oldEpoch.body().path("currentEpoch").asLong()).isEqualTo(2);
		}
		assertThat(fingerprint()).isEqualTo(before);
		assertThat(item(id).path("attentionRequests")).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(
			strings = { "{\"epoch\": 1}", "{\"epoch\": 1, \"question\": \"\"}", "{\"epoch\": 1, \"question\": null}",
					"{\"epoch\": 1, \"question\": 42}", "{\"epoch\": 1, \"question\": \"q\", \"blocking\": \"yes\"}",
					"{\"epoch\": 1, \"question\": \"q\", \"blocking\": 1}",
					"{\"epoch\": 1, \"question\": \"q\", \"context\": [1, 2]}",
					"{\"epoch\": 1, \"question\": \"q\", \"context\": \"text\"}",
					"{\"epoch\": 1, \"question\": \"q\", \"context\": {\"k\": \"a\\u0000b\"}}",
					"{\"epoch\": 1, \"question\": \"\\ud800\"}", "{\"question\": \"q\"}",
					"{\"epoch\": 1, \"question\": \"q\", \"urgent\": true}" })
	void invalidAttentionRequestsAreRejectedAndTheLeaseCarriesOn(String body) {
		UUID id = createItem("task");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		assertProblem(this.api.post("/leases/" + leaseId(claim) + "/attention-requests", body), 422,
				"validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
		assertThat(status(id)).isEqualTo("leased");
	}

	@Test
	void questionMayBe20000CharactersButNotMore() {
		createItem("task");
		JsonNode claim = claim("worker-1");
		assertProblem(askForAttention(claim, "q".repeat(20_001), false), 422, "validation_failed");
		assertCreated(askForAttention(claim, "q".repeat(20_000), false));
		assertProblem(
				this.api.post("/leases/" + leaseId(claim) + "/attention-requests",
						Map.of("epoch", 1, "question", "big context", "context", Map.of("x", "y".repeat(70_000)))),
				422, "validation_failed");
	}

	@ParameterizedTest
	@ValueSource(strings = { "{}", "{\"resolution\": \"ok\"}", "{\"resolvedBy\": \"me\"}",
			"{\"resolution\": \"\", \"resolvedBy\": \"me\"}", "{\"resolution\": \"ok\", \"resolvedBy\": \"\"}",
			"{\"resolution\": 1, \"resolvedBy\": \"me\"}", "{\"resolution\": \"a\\u0000\", \"resolvedBy\": \"me\"}",
			"{\"resolution\": \"ok\", \"resolvedBy\": \"me\", \"extra\": 1}" })
	void invalidResolutionsAreRejectedAndTheRequestStaysOpen(String body) {
		createItem("task");
		UUID request = id(askForAttention(claim("worker-1"), "Sure?", true));
		Map<String, Object> before = fingerprint();
		assertProblem(this.api.post("/attention-requests/" + request + "/resolve", body), 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void resolutionAndResolverHaveLengthLimits() {
		createItem("task");
		UUID request = id(askForAttention(claim("worker-1"), "Sure?", true));
		assertProblem(this.api.post("/attention-requests/" + request + "/resolve",
				Map.of("resolution", "r".repeat(20_001), "resolvedBy", "me")), 422, "validation_failed");
		assertProblem(this.api.post("/attention-requests/" + request + "/resolve",
				Map.of("resolution", "ok", "resolvedBy", "m".repeat(201))), 422, "validation_failed");
		assertOk(this.api.post("/attention-requests/" + request + "/resolve",
				Map.of("resolution", "r".repeat(20_000), "resolvedBy", "m".repeat(200))));
	}

	@Test
	void unknownRequestsAreNotFound() {
		UUID unknown = UUID.randomUUID();
		assertProblem(this.api.get("/attention-requests/" + unknown), 404, "not_found");
		assertProblem(this.api.get("/attention-requests/not-an-id"), 404, "not_found");
		assertProblem(resolve(unknown, "whatever"), 404, "not_found");
		assertProblem(this.api.post("/attention-requests/not-an-id/resolve",
				Map.of("resolution", "whatever", "resolvedBy", "me")), 404, "not_found");
	}

	@Test
	void inboxListsRequestsNewestFirstWithFiltersAndPages() {
		UUID a = createItem("item a", "queue", "a");
		UUID b = createItem("item b", "queue", "b");
		UUID c = createItem("item c", "queue", "c");
		JsonNode claimA = claimFrom("a", "worker-a");
		UUID q1 = id(askForAttention(claimA, "q1", false));
		UUID q2 = id(askForAttention(claimA, "q2", true));
		UUID q3 = id(askForAttention(claimFrom("b", "worker-b"), "q3", true));
		JsonNode claimC = claimFrom("c", "worker-c");
		UUID q4 = id(askForAttention(claimC, "q4", false));
		UUID q5 = id(askForAttention(claimC, "q5", false));
		assertOk(resolve(q3, "answered"));

		assertThat(idsOf(inbox(""))).containsExactly(q5, q4, q3, q2, q1);
		assertThat(idsOf(inbox("?status=open"))).containsExactly(q5, q4, q2, q1);
		assertThat(idsOf(inbox("?status=resolved"))).containsExactly(q3);
		assertThat(idsOf(inbox("?itemId=" + a))).containsExactly(q2, q1);
		assertThat(idsOf(inbox("?itemId=" + b + "&status=open"))).isEmpty();
		assertThat(idsOf(inbox("?itemId=" + c + "&status=open"))).containsExactly(q5, q4);
		assertThat(idsOf(inbox("?itemId=" + UUID.randomUUID()))).isEmpty();

		JsonNode entry = inbox("?itemId=" + a).get(1);
		assertThat(entry.path("itemTitle").asString()).isEqualTo("item a");
		assertThat(entry.path("question").asString()).isEqualTo("q1");
		assertThat(entry.path("context").isObject()).isTrue();
		assertThat(entry.path("workerId").asString()).isEqualTo("worker-a");
		assertThat(entry.path("leaseId").asString()).isEqualTo(leaseId(claimA).toString());
		assertThat(entry.path("epoch").asLong()).isEqualTo(1);
		assertThat(instant(entry.path("openedAt"))).isNotNull();
		assertThat(this.api.get("/attention-requests/" + q1).body()).isEqualTo(entry);

		List<UUID> paged = new ArrayList<>();
		List<Integer> pageSizes = new ArrayList<>();
		String cursor = null;
		do {
			Api.Response page = this.api
				.get("/attention-requests?limit=2" + ((cursor != null) ? "&cursor=" + cursor : ""));
			assertOk(page);
			paged.addAll(idsOf(page.body().path("attentionRequests")));
			pageSizes.add(page.body().path("attentionRequests").size());
			cursor = page.body().path("nextCursor").asString(null);
		}
		while (cursor != null);
		assertThat(paged).containsExactly(q5, q4, q3, q2, q1);
		assertThat(pageSizes).containsExactly(2, 2, 1);
		Api.Response openPage = this.api.get("/attention-requests?status=open&limit=3");
		assertThat(idsOf(openPage.body().path("attentionRequests"))).containsExactly(q5, q4, q2);
		String next = openPage.body().path("nextCursor").asString();
		assertThat(idsOf(this.api.get("/attention-requests?status=open&limit=3&cursor=" + next)
			.body()
			.path("attentionRequests"))).containsExactly(q1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "?limit=0", "?limit=501", "?limit=ten", "?status=pending", "?status=OPEN",
			"?itemId=not-a-uuid", "?cursor=garbage", "?cursor=" })
	void invalidInboxQueriesAreRejected(String query) {
		assertProblem(this.api.get("/attention-requests" + query), 422, "validation_failed");
	}

	@Test
	void inboxPageSizeDefaultsTo50AndGoesUpTo500() {
		createItem("chatty");
		JsonNode claim = claim("worker-1");
		for (int i = 0; i < 51; i++) {
			assertCreated(askForAttention(claim, "note " + i, false));
		}
		JsonNode page = this.api.get("/attention-requests").body();
		assertThat(page.path("attentionRequests")).hasSize(50);
		assertThat(page.path("nextCursor").isNull()).isFalse();
		JsonNode all = this.api.get("/attention-requests?limit=500").body();
		assertThat(all.path("attentionRequests")).hasSize(51);
		assertThat(all.path("nextCursor").isNull()).isTrue();
	}

	private List<JsonNode> inbox(String query) {
		Api.Response listed = this.api.get("/attention-requests" + query);
		assertOk(listed);
		List<JsonNode> entries = new ArrayList<>();
		listed.body().path("attentionRequests").forEach(entries::add);
		return entries;
	}

	private static List<UUID> idsOf(Iterable<JsonNode> entries) {
		List<UUID> ids = new ArrayList<>();
		entries.forEach((entry) -> ids.add(uuid(entry.path("id"))));
		return ids;
	}

	private List<Integer> blockers(UUID id) {
		JsonNode blockers = item(id).path("blockers");
		return List.of(blockers.path("unmetDependencies").asInt(), blockers.path("openChildren").asInt(),
				blockers.path("openAttentionRequests").asInt());
	}

	private static UUID id(Api.Response created) {
		assertCreated(created);
		return created.id();
	}

}
