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
 * Worker tokens an admin allowed to create items: they create top-level items (in their
 * queues when the token is limited to some), never children of other items; every other
 * worker token is refused as before, and nothing is written by a refusal.
 */
class ItemCreatingWorkerTests extends SecuredServiceTest {

	@Test
	void aWorkerTokenWithoutTheRightIsForbiddenToCreateItems() {
		Api plain = worker("plain");
		plain.get("/tokens/current");
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		Api.Response refused = plain.post("/items", Map.of("title", "Follow-up"));
		assertThat(refused.status()).isEqualTo(403);
		assertThat(refused.code()).isEqualTo("forbidden");
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
	}

	@Test
	void aWorkerTokenWithTheRightCreatesItemsRecordedAsItsOwn() {
		Api creator = creator("creator", null);
		Api.Response made = creator.post("/items", Map.of("title", "Fix the flaky test", "priority", 5));
		assertThat(made.status()).as(made.toString()).isEqualTo(201);
		assertThat(made.body().path("status").asString()).isEqualTo("ready");
		assertThat(made.body().path("createdBy").asString()).isEqualTo("agent creator");
		assertThat(made.body().path("queue").asString()).isEqualTo("default");
		assertThat(creator.post("/claims", Map.of()).status()).as("it may claim it like any item").isEqualTo(201);
	}

	@Test
	void aCreatingWorkerMayNotAddChildrenOrLeaveItsQueuesAndNothingIsWritten() {
		UUID parent = itemIn("alpha");
		Api creator = creator("scoped", List.of("alpha"));
		creator.get("/tokens/current"); // its first use is recorded before the
										// fingerprint
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		Api.Response child = creator.post("/items", Map.of("title", "Sneaky child", "parentId", parent));
		assertThat(child.code()).isEqualTo("forbidden");
		assertThat(child.body().path("detail").asString()).contains("decompose");
		Api.Response elsewhere = creator.post("/items", Map.of("title", "Elsewhere", "queue", "beta"));
		assertThat(elsewhere.code()).isEqualTo("forbidden");
		assertThat(elsewhere.body().path("detail").asString()).contains("alpha").contains("beta");
		assertThat(creator.post("/items", Map.of("title", "No queue")).code()).as("default is not alpha")
			.isEqualTo("forbidden");
		assertThat(Database.fingerprint(this.jdbc)).as("nothing created").isEqualTo(before);
		assertThat(creator.post("/items", Map.of("title", "In alpha", "queue", "alpha")).status()).isEqualTo(201);
	}

	@Test
	void onlyWorkerTokensGetTheRightAndTheTokenListShowsIt() {
		assertThat(create("ops", "operator", null, true, null).code()).isEqualTo("validation_failed");
		assertThat(create("w", "worker", "w", "yes", null).code()).isEqualTo("validation_failed");
		Api.Response made = create("w", "worker", "w", true, null);
		assertThat(made.body().path("createItems").asBoolean()).isTrue();
		JsonNode listed = this.admin.get("/tokens")
			.body()
			.path("tokens")
			.valueStream()
			.filter((token) -> token.path("name").asString().equals("w"))
			.findFirst()
			.orElseThrow();
		assertThat(listed.path("createItems").asBoolean()).isTrue();
		assertThat(token("plain", "worker", "plain").path("createItems").asBoolean()).isFalse();
	}

	private Api creator(String workerId, List<String> queues) {
		Api.Response made = create("agent " + workerId, "worker", workerId, true, queues);
		assertThat(made.status()).as(made.toString()).isEqualTo(201);
		return this.api.as(made.body().path("token").asString());
	}

	private Api.Response create(String name, String role, String workerId, Object createItems, List<String> queues) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("name", name);
		body.put("role", role);
		if (workerId != null) {
			body.put("workerId", workerId);
		}
		body.put("createItems", createItems);
		if (queues != null) {
			body.put("queues", queues);
		}
		return this.admin.post("/tokens", body);
	}

}
