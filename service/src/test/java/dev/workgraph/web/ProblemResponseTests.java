package dev.workgraph.web;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Database;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Errors and bad input (docs/http-api.md, "Problems" and "Precise rules"): every error is
 * an RFC 9457 problem with the stable {@code code}; bad input is a 4xx, never a 500, and
 * writes nothing.
 */
class ProblemResponseTests extends ServiceTest {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	@Test
	void validationNamesEveryBadField() {
		Api.Response item = post("/items", """
				{"title":"","description":"\\u0000","priority":5000,"queue":"A B",
				 "metadata":[],"dependsOn":[null]}""");
		assertInvalid(item, "title", "description", "priority", "queue", "metadata", "dependsOn[0]");
		assertThat(item.body().path("detail").asString()).contains("title", "priority", "queue", "metadata");
		Api.Response claim = post("/claims", "{\"workerId\":\"\",\"queues\":[\"ok\",\"NOT OK\",null]}");
		assertInvalid(claim, "workerId", "queues[1]", "queues[2]");
		Api.Response resolve = post("/attention-requests/" + UUID.randomUUID() + "/resolve",
				"{\"resolution\":\"\",\"resolvedBy\":\"" + "b".repeat(201) + "\"}");
		assertInvalid(resolve, "resolution", "resolvedBy");
		for (JsonNode error : item.body().path("errors")) {
			assertThat(error.path("message").asString()).isNotBlank();
		}
		assertThat(itemCount()).isZero();
	}

	@Test
	void stringLengthsCountCodePointsNotUtf16Units() {
		String astral = "\uD83D\uDE00"; // one code point, two UTF-16 units
		Api.Response longest = this.api.post("/items", Map.of("title", astral.repeat(500)));
		assertThat(longest.status()).as("500 code points, 1000 UTF-16 units").isEqualTo(201);
		assertThat(longest.body().path("title").asString()).isEqualTo(astral.repeat(500));
		assertInvalid(this.api.post("/items", Map.of("title", astral.repeat(501))), "title");
		Api.Response reason = this.api.post("/items/" + longest.id() + "/cancel",
				Map.of("reason", "\u00e9".repeat(2000)));
		assertThat(reason.status()).as(reason.toString()).isEqualTo(200);
	}

	@Test
	void jsonObjectSizesCountUtf8BytesOfCompactJson() {
		// {"k":"…"} is 8 bytes around the value: 65,528 more make exactly 64 KiB.
		String fits = "{ \"k\" :  \"" + "x".repeat(65_528) + "\" }";
		Api.Response atLimit = post("/items", "{\"title\":\"t\",\"metadata\":" + fits + "}");
		assertThat(atLimit.status()).as("whitespace does not count").isEqualTo(201);
		assertInvalid(post("/items", "{\"title\":\"t\",\"metadata\":{\"k\":\"" + "x".repeat(65_529) + "\"}}"),
				"metadata");
		// é is one character but two UTF-8 bytes.
		assertInvalid(post("/items", "{\"title\":\"t\",\"metadata\":{\"k\":\"" + "\u00e9".repeat(32_765) + "\"}}"),
				"metadata");
		assertThat(itemCount()).isOne();
	}

	@Test
	void bodyOfExactlyTenMebibytesIsReadAndOneByteMoreIsTooLarge() throws Exception {
		int limit = 10 * 1024 * 1024;
		Api.Response atLimit = this.api.raw("POST", "/items", BadInputCatalogueTests.oversizedJson(limit),
				Map.of("Content-Type", "application/json"));
		// Read and parsed: a 10 MiB title is simply too long.
		assertInvalid(atLimit, "title");
		Api.Response over = this.api.raw("POST", "/items", BadInputCatalogueTests.oversizedJson(limit + 1),
				Map.of("Content-Type", "application/json"));
		assertProblem(over, 413, "payload_too_large");
		assertThat(itemCount()).isZero();
	}

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

	@Test
	void bodiesMustBeStrictUtf8() {
		byte[][] invalid = { { (byte) 0xc0, (byte) 0xaf }, // overlong '/'
				{ (byte) 0xe0, (byte) 0x80, (byte) 0xaf }, // overlong '/', three bytes
				{ (byte) 0xed, (byte) 0xa0, (byte) 0x80 }, // an encoded surrogate
				{ (byte) 0xff }, { (byte) 0xc3 }, { (byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80 } };
		for (byte[] bytes : invalid) {
			byte[] body = concat("{\"title\":\"a".getBytes(StandardCharsets.US_ASCII), bytes,
					"\"}".getBytes(StandardCharsets.US_ASCII));
			assertProblem(this.api.raw("POST", "/items", body, Map.of("Content-Type", "application/json")), 400,
					"malformed_request");
		}
		assertThat(itemCount()).isZero();
		Api.Response latin1 = this.api.raw("POST", "/items",
				"{\"title\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1),
				Map.of("Content-Type", "application/json; charset=ISO-8859-1"));
		assertThat(latin1.status()).as(latin1.toString()).isEqualTo(201);
		assertThat(latin1.body().path("title").asString()).isEqualTo("caf\u00e9");
	}

	@Test
	void multipartAndFormBodiesAreUnsupportedMediaTypes() {
		for (String type : List.of("multipart/form-data; boundary=b", "multipart/form-data",
				"application/x-www-form-urlencoded")) {
			Api.Response response = this.api.raw("POST", "/items",
					"--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nt\r\n--b--\r\n"
						.getBytes(StandardCharsets.US_ASCII),
					Map.of("Content-Type", type));
			assertProblem(response, 415, "unsupported_media_type");
		}
	}

	@Test
	void requestsRefusedBeforeRoutingStillGetAProblem() throws IOException {
		for (String target : List.of("/items/%zz", "/items/..%2F..%2Fetc", "/items/%C0%AF", "/items/%00")) {
			RawResponse response = rawGet(target);
			assertThat(response.status()).as(target).isEqualTo(400);
			assertThat(response.header("content-type")).as(target).startsWith("application/problem+json");
			JsonNode problem = MAPPER.readTree(response.body());
			assertThat(problem.path("code").asString()).as(target).isEqualTo("malformed_request");
			assertThat(problem.path("status").asInt()).isEqualTo(400);
			assertThat(response.body()).doesNotContain("<html", "Tomcat", "Exception");
		}
	}

	@Test
	void undecodableQueryStringsAreMalformedNotServerErrors() throws IOException {
		for (String target : List.of("/items?cursor=%%%", "/items?limit=%C0", "/attention-requests?status=%ZZ")) {
			RawResponse response = rawGet(target);
			assertThat(response.status()).as(target + " " + response.body()).isEqualTo(400);
			assertThat(MAPPER.readTree(response.body()).path("code").asString()).isEqualTo("malformed_request");
		}
	}

	@Test
	void blankOrMalformedIdsInPathsAreNotFound() {
		for (String path : List.of("/items/%20", "/items/%20/leases", "/leases/%20", "/attention-requests/%20",
				"/items/not-an-id", "/leases/42", "/attention-requests/" + UUID.randomUUID() + "x")) {
			assertProblem(this.api.get(path), 404, "not_found");
		}
		assertProblem(post("/items/%20/cancel", "{}"), 404, "not_found");
	}

	/** A typo in an id is told apart from a record that does not exist. */
	@Test
	void aMalformedIdInAPathIsNotFoundAndSaysItIsMalformed() {
		Api.Response answer = post("/leases/abc/complete", "{\"epoch\":1}");
		assertProblem(answer, 404, "not_found");
		assertThat(answer.body().path("detail").asString()).isEqualTo(
				"'abc' is not a well-formed id (a UUID such as 0199a3d2-8c1e-7b2a-9d4f-2e6b1c0a5f31), so leaseId names nothing");
	}

	/**
	 * The unknown-field 422 says which fields the object takes, as the query one does.
	 */
	@Test
	void anUnknownBodyFieldListsTheFieldsTheObjectTakes() {
		Api.Response answer = post("/items", "{\"title\":\"t\",\"colour\":\"red\"}");
		assertProblem(answer, 422, "validation_failed");
		assertThat(answer.body().path("errors").path(0).path("message").asString())
			.startsWith("is not a known field; it takes ")
			.contains("dependsOn", "metadata", "parentId", "title");
	}

	@Test
	void theErrorPathItselfIsNotFound() {
		assertProblem(this.api.get("/error"), 404, "not_found");
		assertProblem(post("/error", "{}"), 404, "not_found");
	}

	/**
	 * Sends a request line exactly as written, which java.net.URI would refuse to build.
	 */
	private RawResponse rawGet(String target) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			socket.setSoTimeout(30_000);
			socket.getOutputStream()
				.write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
					.getBytes(StandardCharsets.ISO_8859_1));
			String raw = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			int headEnd = raw.indexOf("\r\n\r\n");
			String[] head = raw.substring(0, headEnd).split("\r\n");
			Map<String, String> headers = new java.util.HashMap<>();
			for (int i = 1; i < head.length; i++) {
				int colon = head[i].indexOf(':');
				headers.put(head[i].substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT),
						head[i].substring(colon + 1).trim());
			}
			String body = raw.substring(headEnd + 4);
			if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
				body = dechunk(body);
			}
			return new RawResponse(Integer.parseInt(head[0].split(" ")[1]), headers, body);
		}
	}

	private static String dechunk(String chunked) {
		StringBuilder body = new StringBuilder();
		int at = 0;
		while (true) {
			int lineEnd = chunked.indexOf("\r\n", at);
			int size = Integer.parseInt(chunked.substring(at, lineEnd).trim(), 16);
			if (size == 0) {
				return body.toString();
			}
			body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
			at = lineEnd + 2 + size + 2;
		}
	}

	private static byte[] concat(byte[]... parts) {
		java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
		for (byte[] part : parts) {
			all.writeBytes(part);
		}
		return all.toByteArray();
	}

	private long itemCount() {
		return count("select count(*) from work_items");
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

	record RawResponse(int status, Map<String, String> headers, String body) {

		String header(String name) {
			return this.headers.get(name);
		}

	}

	static List<String> fields(Api.Response response) {
		return response.body().path("errors").findValuesAsString("field");
	}

}
