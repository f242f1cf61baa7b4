package dev.workgraph.access;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Database;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Worker tokens limited to some queues: their claims of every kind take from those queues
 * only, a claim that names another queue is 403 with nothing claimed or completed, and
 * only worker tokens can be limited.
 */
class QueueScopedTokenTests extends SecuredServiceTest {

	@Test
	void aScopedTokenThatNamesNoQueueClaimsFromItsQueuesOnly() {
		UUID a = itemIn("alpha");
		UUID b = itemIn("beta");
		UUID c = itemIn("gamma");
		Api scoped = scopedWorker("scoped", List.of("alpha", "beta"));
		List<UUID> claimed = new java.util.ArrayList<>();
		for (Api.Response answer = scoped.post("/claims", Map.of()); answer.status() == 201; answer = scoped
			.post("/claims", Map.of())) {
			claimed.add(itemId(answer.body()));
		}
		assertThat(claimed).containsExactlyInAnyOrder(a, b);
		assertThat(this.operator.get("/items/" + c).body().path("status").asString()).isEqualTo("ready");
		itemIn("gamma");
		Api.Response batch = scoped.post("/claims/batch", Map.of("limit", 10));
		assertThat(batch.status()).as("nothing is ready in its queues").isEqualTo(204);
		Api.Response anyone = worker("unscoped").post("/claims/batch", Map.of("limit", 10));
		assertThat(anyone.body().path("claims")).hasSize(2);
	}

	@Test
	void aClaimNamingAQueueOutsideTheTokensIsForbiddenWithNothingWritten() {
		itemIn("alpha");
		itemIn("gamma");
		Api scoped = scopedWorker("scoped", List.of("alpha"));
		JsonNode held = scoped.post("/claims", Map.of("queues", List.of("alpha"))).body();
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		Api.Response single = scoped.post("/claims", Map.of("queues", List.of("alpha", "gamma")));
		assertThat(single.status()).isEqualTo(403);
		assertThat(single.code()).isEqualTo("forbidden");
		assertThat(single.body().path("detail").asString()).contains("gamma");
		assertThat(scoped.post("/claims/batch", Map.of("queues", List.of("gamma"), "limit", 5)).code())
			.isEqualTo("forbidden");
		Api.Response chained = scoped.post("/leases/" + leaseId(held) + "/complete",
				Map.of("epoch", epoch(held), "claimNext", Map.of("queues", List.of("gamma"))));
		assertThat(chained.code()).isEqualTo("forbidden");
		assertThat(Database.fingerprint(this.jdbc)).as("nothing claimed, nothing completed").isEqualTo(before);
		Api.Response done = scoped.post("/leases/" + leaseId(held) + "/complete",
				Map.of("epoch", epoch(held), "claimNext", Map.of()));
		assertThat(done.status()).as(done.toString()).isEqualTo(200);
		assertThat(done.body().path("next").isNull()).as("gamma's item is not the token's").isTrue();
	}

	@Test
	void onlyWorkerTokensAreLimitedAndTheListShowsTheirQueues() {
		assertThat(create("ops", "operator", null, List.of("alpha")).code()).isEqualTo("validation_failed");
		assertThat(create("w", "worker", "w", List.of()).code()).isEqualTo("validation_failed");
		assertThat(create("w", "worker", "w", List.of("Not A Queue")).code()).isEqualTo("validation_failed");
		Api.Response made = create("w", "worker", "w", List.of("alpha", "beta", "alpha"));
		assertThat(made.status()).isEqualTo(201);
		assertThat(made.body().path("queues").valueStream().map(JsonNode::asString)).containsExactly("alpha", "beta");
		JsonNode listed = this.admin.get("/tokens")
			.body()
			.path("tokens")
			.valueStream()
			.filter((token) -> token.path("name").asString().equals("w"))
			.findFirst()
			.orElseThrow();
		assertThat(listed.path("queues").valueStream().map(JsonNode::asString)).containsExactly("alpha", "beta");
		assertThat(token("free", "worker", "free").path("queues").isNull()).isTrue();
	}

	private Api scopedWorker(String workerId, List<String> queues) {
		Api.Response made = create("agent " + workerId, "worker", workerId, queues);
		assertThat(made.status()).as(made.toString()).isEqualTo(201);
		return this.api.as(made.body().path("token").asString());
	}

	private Api.Response create(String name, String role, String workerId, List<String> queues) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("name", name);
		body.put("role", role);
		if (workerId != null) {
			body.put("workerId", workerId);
		}
		body.put("queues", queues);
		return this.admin.post("/tokens", body);
	}

}
