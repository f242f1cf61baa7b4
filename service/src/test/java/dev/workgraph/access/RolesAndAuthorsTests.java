package dev.workgraph.access;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Database;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What each role may do, how requests without a usable token are answered, and who is
 * recorded as the author of changes.
 */
class RolesAndAuthorsTests extends SecuredServiceTest {

	@Test
	void requestsWithoutAUsableTokenAre401WithABearerChallenge() {
		UUID item = itemIn("q");
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		List<Api> callers = List.of(this.api, this.api.withAuthorization("Basic b3BzOm9wcw=="),
				this.api.withAuthorization("Bearer"), this.api.withAuthorization("Bearer a b"),
				this.api.as("wg_not-a-token"), this.api.as(ADMIN_TOKEN + "x"));
		for (Api caller : callers) {
			for (Api.Response response : List.of(caller.get("/items/" + item),
					caller.post("/items", Map.of("title", "x")), caller.post("/claims", Map.of("workerId", "w")),
					caller.get("/tokens"), caller.get("/actuator/consistency"))) {
				assertThat(response.status()).as(response.toString()).isEqualTo(401);
				assertThat(response.code()).isEqualTo("unauthenticated");
				assertThat(response.header("Content-Type")).startsWith("application/problem+json");
				assertThat(response.header("WWW-Authenticate")).startsWith("Bearer");
				assertThat(response.raw().body()).doesNotContain(ADMIN_TOKEN).doesNotContain("not-a-token");
			}
		}
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
		// Open without a token.
		assertThat(this.api.get("/actuator/health").status()).isEqualTo(200);
		assertThat(this.api.get("/actuator/health/liveness").status()).isEqualTo(200);
	}

	@Test
	void operatorsSteerWorkersWork() {
		UUID item = itemIn("q");
		Api worker = worker("w1");
		assertThat(codes(this.operator.post("/claims", Map.of("workerId", "w1")),
				this.operator.post("/leases/" + UUID.randomUUID() + "/complete", Map.of("epoch", 1)),
				this.operator.get("/tokens"), worker.get("/actuator/consistency"),
				worker.post("/items/" + item + "/dependencies", Map.of("dependsOn", item)),
				worker.get("/attention-requests")))
			.containsOnly("forbidden");
		assertThat(this.operator.get("/actuator/consistency").status()).isEqualTo(200);
		assertThat(this.operator.get("/attention-requests").status()).isEqualTo(200);
		// Unknown paths need a token, and then are 404.
		assertThat(this.api.get("/nothing-here").code()).isEqualTo("unauthenticated");
		assertThat(this.operator.get("/nothing-here").code()).isEqualTo("not_found");
	}

	@Test
	void changesRecordTheTokensName() {
		UUID parent = itemIn("authors");
		assertThat(item(parent, this.operator).path("createdBy").asString()).isEqualTo("ops");
		assertThat(item(parent, this.operator).path("cancelledBy").isNull()).isTrue();
		Api worker = worker("planner");
		JsonNode claim = worker.post("/claims", Map.of("queues", List.of("authors"))).body();
		Api.Response decomposed = worker.post("/leases/" + leaseId(claim) + "/decompose", Map.of("epoch", epoch(claim),
				"children", List.of(Map.of("key", "a", "title", "a"), Map.of("key", "b", "title", "b"))));
		assertThat(decomposed.status()).as(decomposed.toString()).isEqualTo(201);
		for (JsonNode child : decomposed.body().path("children")) {
			assertThat(child.path("createdBy").asString()).isEqualTo("agent planner");
		}

		// A worker asks, an operator answers without naming itself: the token's name.
		JsonNode next = worker.post("/claims", Map.of("queues", List.of("authors"))).body();
		JsonNode asked = worker
			.post("/leases/" + leaseId(next) + "/attention-requests", Map.of("epoch", epoch(next), "question", "ok?"))
			.body();
		Api.Response resolved = this.operator.post("/attention-requests/" + asked.path("id").asString() + "/resolve",
				Map.of("resolution", "yes"));
		assertThat(resolved.status()).as(resolved.toString()).isEqualTo(200);
		assertThat(resolved.body().path("resolvedBy").asString()).isEqualTo("ops");

		// The operator cancels the plan: the plan and its open children are cancelled by
		// "ops".
		assertThat(this.operator.post("/items/" + parent + "/cancel", Map.of("reason", "dropped")).status())
			.isEqualTo(200);
		assertThat(count("select count(*) from work_items where cancelled_by = 'ops'")).isEqualTo(3);

		// A worker's lease cancel records the worker's token.
		UUID own = itemIn("lease-cancel");
		JsonNode held = worker.post("/claims", Map.of("queues", List.of("lease-cancel"))).body();
		assertThat(worker.post("/leases/" + leaseId(held) + "/cancel", Map.of("epoch", epoch(held))).status())
			.isEqualTo(200);
		assertThat(item(own, this.operator).path("cancelledBy").asString()).isEqualTo("agent planner");
	}

	private static JsonNode item(UUID id, Api as) {
		Api.Response item = as.get("/items/" + id);
		assertThat(item.status()).as(item.toString()).isEqualTo(200);
		return item.body();
	}

}
