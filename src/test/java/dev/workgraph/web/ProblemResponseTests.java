package dev.workgraph.web;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Database;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Errors and bad input (contract §3, §5): every error is an RFC 9457 problem with the
 * contract's {@code code}; bad input is a 4xx, never a 500, and writes nothing.
 */
class ProblemResponseTests extends ServiceTest {

	@Test
	void wrongJsonTypesAreValidationErrorsNotCoercedValues() {
		UUID item = createItem("item");
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		assertInvalid(post("/items", "{\"title\":1}"), "title");
		assertInvalid(post("/items", "{\"title\":true}"), "title");
		assertInvalid(post("/items", "{\"title\":\"t\",\"queue\":2.5}"), "queue");
		assertInvalid(post("/items", "{\"title\":\"t\",\"parentId\":\"\"}"), "parentId");
		assertInvalid(post("/items", "{\"title\":\"t\",\"dependsOn\":[\"\"]}"), "dependsOn[0]");
		assertInvalid(post("/items", "{\"title\":\"t\",\"dependsOn\":[null]}"), "dependsOn[0]");
		assertInvalid(post("/items/" + item + "/dependencies", "{\"dependsOn\":\"\"}"), "dependsOn");
		assertInvalid(post("/items/" + item + "/cancel", "{\"reason\":false}"), "reason");
		assertInvalid(post("/claims", "{\"workerId\":7}"), "workerId");
		assertInvalid(post("/claims", "{\"workerId\":\"w\",\"queues\":[\"default\",3]}"), "queues[1]");
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
	}

	@Test
	void bodiesThatAreNotOneWellFormedJsonValueAreMalformedWhateverTheirFirstToken() {
		String deepArrays = "[".repeat(10_000) + "]".repeat(10_000);
		for (String path : List.of("/items", "/claims", "/items/" + UUID.randomUUID() + "/cancel")) {
			assertProblem(post(path, deepArrays), 400, "malformed_request");
			assertProblem(post(path, "[" + "{\"a\":".repeat(120) + "1" + "}".repeat(120) + "]"), 400,
					"malformed_request");
		}
		Api.Response trailing = post("/items", "{\"title\":\"t\"} {\"title\":\"u\"}");
		assertProblem(trailing, 400, "malformed_request");
		assertProblem(post("/claims", "{\"workerId\":1} x"), 400, "malformed_request");
		assertProblem(post("/items", "[1, 2"), 400, "malformed_request");
		// Exactly 100 levels is allowed: the item, its metadata and 98 more.
		String deepest = "{\"title\":\"t\",\"metadata\":" + "{\"a\":".repeat(98) + "{}" + "}".repeat(98) + "}";
		assertThat(post("/items", deepest).status()).isEqualTo(201);
		assertProblem(post("/items", deepest.replace("{}", "{\"b\":{}}")), 400, "malformed_request");
		assertThat(itemCount()).as("only the valid request wrote").isEqualTo(1);
	}

	@Test
	void unpairedSurrogatesInKeysAreValidationErrorsNamingWhereTheKeyIs() {
		assertInvalid(post("/items", "{\"title\":\"t\",\"metadata\":{\"\\ud800\":1}}"), "metadata");
		assertInvalid(post("/items", "{\"title\":\"t\",\"metadata\":{\"a\":[{\"b\":1,\"\\udc00x\":2}]}}"),
				"metadata.a[0]");
		assertInvalid(post("/items", "{\"\\ud83d\":\"t\"}"), "body");
		// A well-formed pair in a key is fine.
		assertThat(post("/items", "{\"title\":\"t\",\"metadata\":{\"\\ud83d\\ude00\":1}}").status()).isEqualTo(201);
		assertThat(itemCount()).as("only the valid request wrote").isEqualTo(1);
	}

	private long itemCount() {
		return this.jdbc.sql("select count(*) from work_items").query(Long.class).single();
	}

	private Api.Response post(String path, String json) {
		return this.api.raw("POST", path, json.getBytes(StandardCharsets.UTF_8),
				Map.of("Content-Type", "application/json"));
	}

	private static void assertInvalid(Api.Response response, String... fields) {
		assertProblem(response, 422, "validation_failed");
		assertThat(response.body().path("errors").findValuesAsString("field")).as(response.toString())
			.containsExactlyInAnyOrder(fields);
	}

	static void assertProblem(Api.Response response, int status, String code) {
		assertThat(response.status()).as(response.toString()).isEqualTo(status);
		assertThat(response.header("Content-Type")).as(response.toString()).startsWith("application/problem+json");
		JsonNode problem = response.body();
		assertThat(problem.path("code").asString()).as(response.toString()).isEqualTo(code);
		assertThat(problem.path("type").asString()).isEqualTo("urn:workgraph:problem:" + code);
		assertThat(problem.path("status").asInt()).isEqualTo(status);
		assertThat(problem.path("title").asString()).isNotBlank();
		assertThat(problem.path("detail").asString()).isNotBlank();
	}

	static List<String> fields(Api.Response response) {
		return response.body().path("errors").findValuesAsString("field");
	}

}
