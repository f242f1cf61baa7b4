package dev.workgraph.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.client.problem.Problem;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every request and answer type through the client's own JSON settings: requests say
 * exactly what they hold (absent fields are left out, because the service refuses members
 * it does not know), answers read what the service sends, including members and enum
 * values a newer service may add.
 */
class JsonRoundTripTests {

	private static final UUID A = UUID.fromString("0197d0b2-0000-7000-8000-00000000000a");

	private static final UUID B = UUID.fromString("0197d0b2-0000-7000-8000-00000000000b");

	private static final Instant T = Instant.parse("2026-11-30T12:00:00.123456Z");

	@Test
	void aClaimAsTheServiceSendsIt() throws IOException {
		Claim claim = Json.MAPPER.readValue(resource("wire/claim.json"), Claim.class);
		Item item = claim.item();
		assertThat(claim.lease().epoch()).isEqualTo(3);
		assertThat(claim.lease().grantedLength()).isEqualTo(Duration.ofMinutes(1));
		assertThat(claim.lease().outcome()).isNull();
		assertThat(item.status()).isEqualTo(ItemStatus.LEASED);
		assertThat(item.metadata().path("branch").asString()).isEqualTo("release/1.4");
		assertThat(item.metadata().path("nested").path("nothing").isNull()).isTrue();
		assertThat(item.result().isNull()).isTrue();
		assertThat(item.dependsOn()).extracting(Item.Dependency::status).containsExactly(ItemStatus.COMPLETED);
		assertThat(item.children()).extracting((child) -> child.result().path("rows").asInt(-1))
			.containsExactly(1200, -1);
		assertThat(item.lease().id()).isEqualTo(claim.lease().id());
		assertThat(item.answers()).singleElement().satisfies((answer) -> {
			assertThat(answer.resolution()).isEqualTo("eu");
			assertThat(answer.context().path("regions").get(0).asString()).isEqualTo("eu");
		});
		assertThat(item.createdBy()).isEqualTo("planner");
		assertThat(item.cancelledBy()).isNull();
		assertThat(roundTrip(claim, Claim.class)).isEqualTo(claim);
	}

	@Test
	void metadataAndResultsConvertToTheCallersTypes() throws IOException {
		Item item = Json.MAPPER.readValue(resource("wire/claim.json"), Claim.class).item();
		record Branch(String branch, List<String> tags) {
		}
		assertThat(item.metadataAs(Branch.class)).isEqualTo(new Branch("release/1.4", List.of("a", "b")));
		assertThat(item.resultAs(Branch.class)).isNull();
	}

	@Test
	void valuesANewerServiceAddsAreAcceptedAsUnknown() {
		Lease lease = Json.MAPPER.readValue("{\"id\":\"" + A + "\",\"epoch\":1,\"outcome\":\"vanished\",\"x\":1}",
				Lease.class);
		assertThat(lease.outcome()).isEqualTo(LeaseOutcome.UNKNOWN);
		Item item = Json.MAPPER.readValue("{\"id\":\"" + A + "\",\"title\":\"t\",\"status\":\"frozen\"}", Item.class);
		assertThat(item.status()).isEqualTo(ItemStatus.UNKNOWN);
		assertThat(item.metadata().isObject()).isTrue();
		assertThat(item.children()).isEmpty();
	}

	@Test
	void everyLeaseOutcomeReads() {
		Map<String, LeaseOutcome> wire = Map.of("completed", LeaseOutcome.COMPLETED, "released", LeaseOutcome.RELEASED,
				"cancelled", LeaseOutcome.CANCELLED, "decomposed", LeaseOutcome.DECOMPOSED, "attention_requested",
				LeaseOutcome.ATTENTION_REQUESTED, "expired", LeaseOutcome.EXPIRED);
		wire.forEach((text, outcome) -> assertThat(Json.MAPPER.readValue("\"" + text + "\"", LeaseOutcome.class))
			.isEqualTo(outcome));
	}

	@Test
	void newItemSendsOnlyWhatWasGiven() {
		assertThat(json(NewItem.titled("Build"))).isEqualTo("{\"title\":\"Build\"}");
		NewItem full = NewItem.titled("Build")
			.withDescription("d")
			.withPriority(-3)
			.withQueue("ci")
			.withMetadata(Map.of("k", "v"))
			.withParent(A)
			.withDependsOn(B);
		assertThat(tree(full)).isEqualTo(tree(Map.of("title", "Build", "description", "d", "priority", -3, "queue",
				"ci", "metadata", Map.of("k", "v"), "parentId", A.toString(), "dependsOn", List.of(B.toString()))));
		assertThat(roundTrip(full, NewItem.class)).isEqualTo(full);
	}

	@Test
	void newChildSendsOnlyWhatWasGiven() {
		assertThat(json(NewChild.of("schema", "Write the schema")))
			.isEqualTo("{\"key\":\"schema\",\"title\":\"Write the schema\"}");
		NewChild child = NewChild.of("backfill", "Backfill")
			.withDependsOn("schema")
			.withPriority(2)
			.withQueue("db")
			.withDescription("all rows")
			.withMetadata(Map.of("rows", 10));
		assertThat(roundTrip(child, NewChild.class)).isEqualTo(child);
	}

	@Test
	void claimRequestsLeaveOutTheWaitUnlessAsked() {
		assertThat(json(ClaimRequest.forWorker("w"))).isEqualTo("{\"workerId\":\"w\"}");
		ClaimRequest request = ClaimRequest.forWorker("w")
			.withQueues("a", "b")
			.withLeaseSeconds(60)
			.withWaitSeconds(30);
		assertThat(json(request))
			.isEqualTo("{\"workerId\":\"w\",\"queues\":[\"a\",\"b\"],\"leaseSeconds\":60,\"waitSeconds\":30}");
		assertThat(roundTrip(request, ClaimRequest.class)).isEqualTo(request);
		// A worker token names the worker: the body may leave it out.
		assertThat(json(new ClaimRequest(null, null, null, null))).isEqualTo("{}");
	}

	@Test
	void nextClaimsSendOnlyWhatWasGiven() {
		assertThat(json(NextClaim.fromAnyQueue())).isEqualTo("{}");
		NextClaim next = NextClaim.fromAnyQueue().withQueues("a", "b").withLeaseSeconds(60);
		assertThat(json(next)).isEqualTo("{\"queues\":[\"a\",\"b\"],\"leaseSeconds\":60}");
		assertThat(roundTrip(next, NextClaim.class)).isEqualTo(next);
		// The worker and the wait are not the next claim's.
		assertThat(json(NextClaim.like(ClaimRequest.forWorker("w").withLeaseSeconds(30).withWaitSeconds(20))))
			.isEqualTo("{\"leaseSeconds\":30}");
	}

	@Test
	void batchClaimRequests() {
		BatchClaimRequest request = BatchClaimRequest.forWorker("w", 50).withQueues("q").withWaitSeconds(10);
		assertThat(json(request)).isEqualTo("{\"workerId\":\"w\",\"queues\":[\"q\"],\"limit\":50,\"waitSeconds\":10}");
		assertThat(roundTrip(request, BatchClaimRequest.class)).isEqualTo(request);
	}

	@Test
	void attentionRequestsAndCompletionsAndTokens() {
		NewAttentionRequest question = NewAttentionRequest.nonBlocking("Which region?",
				Map.of("options", List.of("eu")));
		assertThat(roundTrip(question, NewAttentionRequest.class)).isEqualTo(question);
		Completion completion = Completion.of(LeaseRef.of(A, 4), Map.of("ok", true));
		assertThat(tree(completion))
			.isEqualTo(tree(Map.of("leaseId", A.toString(), "epoch", 4, "result", Map.of("ok", true))));
		assertThat(roundTrip(completion, Completion.class)).isEqualTo(completion);
		assertThat(json(NewToken.worker("agent", "agent-7")))
			.isEqualTo("{\"name\":\"agent\",\"role\":\"worker\",\"workerId\":\"agent-7\"}");
		assertThat(json(NewToken.operator("ops"))).isEqualTo("{\"name\":\"ops\",\"role\":\"operator\"}");
		assertThat(roundTrip(NewToken.admin("root"), NewToken.class)).isEqualTo(NewToken.admin("root"));
	}

	@Test
	void answersRoundTrip() {
		Lease lease = new Lease(A, B, "w", 2, T, T, T.plusSeconds(60), false, T.plusSeconds(5),
				LeaseOutcome.ATTENTION_REQUESTED, "asked", "eyJhbGciOiJFZERTQSJ9.e30.c2ln");
		assertThat(roundTrip(lease, Lease.class)).isEqualTo(lease);
		Item item = Json.MAPPER.readValue("{\"id\":\"" + B + "\",\"title\":\"t\",\"status\":\"completed\","
				+ "\"result\":[1,2],\"blockers\":{\"unmetDependencies\":1,\"openChildren\":2,\"openAttentionRequests\":3}}",
				Item.class);
		assertThat(item.resultAs(int[].class)).containsExactly(1, 2);
		assertThat(roundTrip(item, Item.class)).isEqualTo(item);
		assertThat(roundTrip(new EndedLease(lease, item), EndedLease.class)).isEqualTo(new EndedLease(lease, item));
		Decomposed decomposed = new Decomposed(lease, item, List.of(item));
		assertThat(roundTrip(decomposed, Decomposed.class)).isEqualTo(decomposed);
		AttentionRequest request = new AttentionRequest(A, B, "t", A, null, 3, "system", true, "Why?",
				Json.MAPPER.createObjectNode().put("k", 1), AttentionRequest.Status.OPEN, T, null, null, null);
		assertThat(roundTrip(request, AttentionRequest.class)).isEqualTo(request);
		assertThat(roundTrip(new ItemPage(List.of(item), "c"), ItemPage.class))
			.isEqualTo(new ItemPage(List.of(item), "c"));
		assertThat(roundTrip(new LeasePage(List.of(lease), null), LeasePage.class))
			.isEqualTo(new LeasePage(List.of(lease), null));
		assertThat(roundTrip(new AttentionRequestPage(List.of(request), null), AttentionRequestPage.class))
			.isEqualTo(new AttentionRequestPage(List.of(request), null));
		Token token = new Token(A, "ops", TokenRole.OPERATOR, null, T, T, null);
		assertThat(roundTrip(token, Token.class)).isEqualTo(token);
		IssuedToken issued = new IssuedToken(A, "agent", TokenRole.WORKER, "agent-7", "s3cret", T);
		assertThat(roundTrip(issued, IssuedToken.class)).isEqualTo(issued);
		assertThat(issued.toString()).doesNotContain("s3cret");
	}

	@Test
	void aCompletionWithItsNextClaimRoundTrips() {
		Lease lease = new Lease(A, B, "w", 2, T, T, T.plusSeconds(60), false, T.plusSeconds(5), LeaseOutcome.COMPLETED,
				null, null);
		Item item = Json.MAPPER.readValue("{\"id\":\"" + B + "\",\"title\":\"t\",\"status\":\"completed\"}",
				Item.class);
		Lease nextLease = new Lease(B, A, "w", 1, T, T, T.plusSeconds(60), true, null, null, null, "token");
		Item nextItem = Json.MAPPER.readValue("{\"id\":\"" + A + "\",\"title\":\"n\",\"status\":\"leased\"}",
				Item.class);
		CompletedWithNext withNext = new CompletedWithNext(lease, item,
				java.util.Optional.of(new Claim(nextLease, nextItem)), null);
		assertThat(roundTrip(withNext, CompletedWithNext.class)).isEqualTo(withNext);
		CompletedWithNext failed = new CompletedWithNext(lease, item, java.util.Optional.empty(),
				Problem.synthesized(503, "service_unavailable", "down"));
		assertThat(roundTrip(failed, CompletedWithNext.class)).isEqualTo(failed);
		assertThat(new CompletedWithNext(lease, item, null, null).next()).isEmpty();
	}

	@Test
	void completionResultsCarryALeaseOrAProblem() {
		String json = "{\"results\":[{\"leaseId\":\"" + A + "\",\"status\":200,\"lease\":{\"id\":\"" + A
				+ "\",\"epoch\":1,\"outcome\":\"completed\"}},{\"leaseId\":\"" + B + "\",\"status\":409,"
				+ "\"problem\":{\"type\":\"urn:workgraph:problem:lease_expired\",\"status\":409,\"code\":\"lease_expired\","
				+ "\"currentEpoch\":2}}]}";
		JsonNode results = Json.MAPPER.readTree(json).path("results");
		CompletionResult done = Json.MAPPER.treeToValue(results.get(0), CompletionResult.class);
		CompletionResult refused = Json.MAPPER.treeToValue(results.get(1), CompletionResult.class);
		assertThat(done.isCompleted()).isTrue();
		assertThat(done.lease().outcome()).isEqualTo(LeaseOutcome.COMPLETED);
		assertThat(done.failure()).isNull();
		assertThat(refused.isCompleted()).isFalse();
		assertThat(refused.failure()).isInstanceOf(dev.workgraph.client.problem.LeaseExpired.class);
		assertThat(roundTrip(refused, CompletionResult.class)).isEqualTo(refused);
		Problem problem = refused.problem();
		assertThat(problem.property("currentEpoch").asLong()).isEqualTo(2);
	}

	private static <T> T roundTrip(T value, Class<T> type) {
		return Json.MAPPER.readValue(Json.MAPPER.writeValueAsString(value), type);
	}

	private static String json(Object value) {
		return Json.MAPPER.writeValueAsString(value);
	}

	private static JsonNode tree(Object value) {
		return Json.MAPPER.readTree(
				Json.MAPPER.writeValueAsString((value instanceof Map<?, ?> map) ? new LinkedHashMap<>(map) : value));
	}

	private static String resource(String name) throws IOException {
		try (InputStream in = JsonRoundTripTests.class.getClassLoader().getResourceAsStream(name)) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
