package dev.workgraph.item;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.Database;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code Idempotency-Key} on {@code POST /items} (docs/http-api.md, "Idempotency keys").
 */
class IdempotencyKeyTests extends GraphTest {

	@Test
	void sameKeyAndSameBodyReturnsTheFirstItemAsItIsNow() {
		Api.Response first = post("key-1", """
				{"title":"import","priority":5,"metadata":{"a":1,"b":[1,2]}}""");
		assertThat(first.status()).as(first.toString()).isEqualTo(201);
		UUID id = first.id();
		// The item moves on; a replay shows it as it is now.
		UUID child = createItem("child", "parentId", id.toString());
		// Same JSON: keys reordered, other whitespace.
		Api.Response replay = post("key-1", """
				{ "metadata" : { "b" : [ 1, 2 ], "a" : 1 },
				  "priority" : 5,  "title" : "import" }""");
		assertThat(replay.status()).as(replay.toString()).isEqualTo(200);
		assertThat(replay.id()).isEqualTo(id);
		assertThat(replay.header("Location")).isNull();
		assertThat(replay.body().path("status").asString()).isEqualTo("blocked");
		assertThat(ids(replay.body().path("children"))).containsExactly(child.toString());
		assertThat(countItems()).isEqualTo(2);
	}

	@Test
	void sameKeyWithADifferentBodyIsAConflictAndWritesNothing() {
		Api.Response first = post("key-2", "{\"title\":\"import\"}");
		assertThat(first.status()).isEqualTo(201);
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		for (String body : List.of("{\"title\":\"export\"}", "{\"title\":\"import\",\"priority\":0}",
				"{\"title\":\"import\",\"metadata\":{}}")) {
			Api.Response conflict = post("key-2", body);
			assertThat(conflict.status()).as(conflict.toString()).isEqualTo(409);
			assertThat(conflict.code()).isEqualTo("idempotency_conflict");
			assertThat(conflict.header("Content-Type")).startsWith("application/problem+json");
		}
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
	}

	@Test
	void differentKeysCreateDifferentItems() {
		Api.Response first = post("key-a", "{\"title\":\"same\"}");
		Api.Response second = post("key-b", "{\"title\":\"same\"}");
		Api.Response none = this.api.post("/items", "{\"title\":\"same\"}");
		assertThat(List.of(first.status(), second.status(), none.status())).containsOnly(201);
		assertThat(List.of(first.id(), second.id(), none.id())).doesNotHaveDuplicates();
	}

	@Test
	void concurrentRequestsWithOneKeyCreateExactlyOneItem() {
		for (int round = 0; round < 5; round++) {
			String key = "concurrent-" + round;
			List<Callable<Api.Response>> requests = new ArrayList<>();
			for (int i = 0; i < 16; i++) {
				requests.add(() -> post(key, "{\"title\":\"once\",\"queue\":\"q" + key + "\"}"));
			}
			List<Api.Response> responses = Concurrently.run(requests);
			assertThat(responses.stream().map(Api.Response::status).filter((status) -> status == 201).count())
				.as("%s", responses)
				.isEqualTo(1);
			assertThat(responses.stream().map(Api.Response::status).filter((status) -> status == 200).count())
				.isEqualTo(15);
			assertThat(responses.stream().map(Api.Response::id).distinct().count()).isEqualTo(1);
			assertThat(this.jdbc.sql("select count(*) from work_items where queue = :queue")
				.param("queue", "q" + key)
				.query(Long.class)
				.single()).isEqualTo(1);
		}
	}

	@Test
	void invalidKeysAreValidationErrors() {
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		for (String key : List.of("", "k".repeat(201))) {
			Api.Response rejected = post(key, "{\"title\":\"x\"}");
			assertThat(rejected.status()).as(rejected.toString()).isEqualTo(422);
			assertThat(rejected.code()).isEqualTo("validation_failed");
			assertThat(rejected.body().path("errors").get(0).path("field").asString()).isEqualTo("Idempotency-Key");
		}
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
		assertThat(post("k".repeat(200), "{\"title\":\"x\"}").status()).isEqualTo(201);
	}

	@Test
	void failedCreateDoesNotUseUpTheKey() {
		UUID unknown = UUID.fromString("01890000-0000-7000-8000-0000000000aa");
		String body = "{\"title\":\"child\",\"parentId\":\"" + unknown + "\"}";
		Api.Response failed = post("key-3", body);
		assertThat(failed.status()).as(failed.toString()).isEqualTo(404);
		Api.Response invalid = post("key-3", "{\"title\":\"\"}");
		assertThat(invalid.status()).isEqualTo(422);
		// The key is still free: a different body may use it now.
		Api.Response created = post("key-3", "{\"title\":\"root\"}");
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		assertThat(post("key-3", "{\"title\":\"root\"}").id()).isEqualTo(created.id());
	}

	private Api.Response post(String key, String body) {
		return this.api.raw("POST", "/items", body.getBytes(StandardCharsets.UTF_8),
				Map.of("Content-Type", "application/json", "Idempotency-Key", key));
	}

	private long countItems() {
		return count("select count(*) from work_items");
	}

}
