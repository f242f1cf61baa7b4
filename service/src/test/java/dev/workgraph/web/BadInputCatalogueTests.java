package dev.workgraph.web;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Database;
import dev.workgraph.testing.ProblemBodies;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bad-input catalogue: hostile requests against every endpoint, each answered with a
 * 4xx RFC 9457 problem carrying its stable {@code code}, no Java internals in the body,
 * and the database exactly as it was.
 *
 * <p>
 * Fixtures are made once per run of the table: a ready item, an item under an active
 * lease, and an open (non-blocking) attention request on that lease. Paths and bodies
 * refer to them as {@code {item}}, {@code {lease}}, {@code {epoch}}, {@code {attention}},
 * and to a well-formed id of nothing as {@code {unknown}}.
 */
class BadInputCatalogueTests extends ServiceTest {

	private static final String JSON = "application/json";

	private static final int MIB = 1024 * 1024;

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	/** Text that must never reach a client: Java types, stack frames, SQL. */
	private static final List<String> INTERNALS = List.of("java.", "javax.", "jakarta.", "tools.jackson",
			"com.fasterxml", "org.springframework", "org.apache", "org.postgresql", "Exception", "at dev.",
			"dev.workgraph", "SQLState", "ERROR:", "\tat ");

	@TestFactory
	Stream<DynamicTest> everyHostileRequestGetsAProblemAndChangesNothing() {
		Fixtures fixtures = fixtures();
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		List<Hostile> catalogue = catalogue();
		assertThat(catalogue).hasSizeGreaterThanOrEqualTo(80);
		assertThat(catalogue.stream().map(Hostile::name)).doesNotHaveDuplicates();
		return catalogue.stream().map((hostile) -> DynamicTest.dynamicTest(hostile.name(), () -> {
			Api.Response response = send(hostile, fixtures);
			assertProblem(response, hostile.status(), hostile.code(), hostile.name());
			if (hostile.field() != null) {
				assertThat(response.body().path("errors").findValuesAsString("field")).as(hostile.name())
					.contains(hostile.field());
			}
			assertThat(Database.fingerprint(this.jdbc)).as("database after: " + hostile.name()).isEqualTo(before);
		}));
	}

	@TestFactory
	Stream<DynamicTest> bodiesOverTenMebibytesGetThe413ProblemHoweverTheyAreSent() {
		Fixtures fixtures = fixtures();
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		List<String> paths = List.of("/items", "/claims", "/items/{item}/dependencies", "/items/{item}/cancel",
				"/leases/{lease}/complete", "/leases/{lease}/decompose", "/attention-requests/{attention}/resolve");
		List<DynamicTest> tests = new ArrayList<>();
		for (String path : paths) {
			tests.add(DynamicTest.dynamicTest("chunked 11 MiB to " + path, () -> {
				Api.Response response = sendChunked(fixtures.resolve(path), 11 * MIB);
				assertProblem(response, 413, "payload_too_large", "chunked to " + path);
				assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
			}));
			tests.add(DynamicTest.dynamicTest("Content-Length 11 MiB to " + path, () -> {
				Api.Response response = this.api.raw("POST", fixtures.resolve(path), oversizedJson(11 * MIB),
						Map.of("Content-Type", JSON));
				assertProblem(response, 413, "payload_too_large", "sized to " + path);
				assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
			}));
		}
		tests.add(DynamicTest.dynamicTest("chunked 40 MiB", () -> {
			Api.Response response = sendChunked("/items", 40 * MIB);
			assertProblem(response, 413, "payload_too_large", "chunked 40 MiB");
			assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
		}));
		return tests.stream();
	}

	private List<Hostile> catalogue() {
		List<Hostile> rows = new ArrayList<>();
		String longText501 = "x".repeat(501);
		String unknownId = "\"{unknown}\"";

		// POST /items: wrong types
		rows.add(post("title is a number", "/items", "{\"title\":1}", 422, "title"));
		rows.add(post("title is a boolean", "/items", "{\"title\":true}", 422, "title"));
		rows.add(post("title is a float", "/items", "{\"title\":1.5}", 422, "title"));
		rows.add(post("title is an array", "/items", "{\"title\":[\"x\"]}", 422, "title"));
		rows.add(post("title is an object", "/items", "{\"title\":{\"a\":1}}", 422, "title"));
		rows.add(post("description is a number", "/items", "{\"title\":\"t\",\"description\":5}", 422, "description"));
		rows.add(post("priority is a string", "/items", "{\"title\":\"t\",\"priority\":\"1\"}", 422, "priority"));
		rows.add(post("priority is a boolean", "/items", "{\"title\":\"t\",\"priority\":true}", 422, "priority"));
		rows.add(post("priority is a fraction", "/items", "{\"title\":\"t\",\"priority\":1.5}", 422, "priority"));
		rows.add(post("queue is a number", "/items", "{\"title\":\"t\",\"queue\":7}", 422, "queue"));
		rows.add(post("metadata is an array", "/items", "{\"title\":\"t\",\"metadata\":[]}", 422, "metadata"));
		rows.add(post("metadata is a string", "/items", "{\"title\":\"t\",\"metadata\":\"{}\"}", 422, "metadata"));
		rows.add(post("metadata is a number", "/items", "{\"title\":\"t\",\"metadata\":5}", 422, "metadata"));
		rows.add(post("dependsOn is a string", "/items", "{\"title\":\"t\",\"dependsOn\":" + unknownId + "}", 422,
				"dependsOn"));
		rows.add(post("dependsOn holds an array", "/items", "{\"title\":\"t\",\"dependsOn\":[[]]}", 422,
				"dependsOn[0]"));
		rows.add(post("body is an array", "/items", "[]", 422, null));
		rows.add(post("body is a string", "/items", "\"title\"", 422, null));
		// POST /items: missing, unknown and out-of-range fields
		rows.add(post("title is missing", "/items", "{}", 422, "title"));
		rows.add(post("title is null", "/items", "{\"title\":null}", 422, "title"));
		rows.add(post("title is empty", "/items", "{\"title\":\"\"}", 422, "title"));
		rows.add(post("title has 501 characters", "/items", "{\"title\":\"" + longText501 + "\"}", 422, "title"));
		rows.add(post("description has 100001 characters", "/items",
				"{\"title\":\"t\",\"description\":\"" + "d".repeat(100_001) + "\"}", 422, "description"));
		rows.add(post("unknown field", "/items", "{\"title\":\"t\",\"owner\":\"me\"}", 422, "owner"));
		rows.add(post("priority above 1000", "/items", "{\"title\":\"t\",\"priority\":1001}", 422, "priority"));
		rows.add(post("priority below -1000", "/items", "{\"title\":\"t\",\"priority\":-1001}", 422, "priority"));
		rows.add(post("priority overflows an int", "/items", "{\"title\":\"t\",\"priority\":2147483648}", 422,
				"priority"));
		rows.add(post("priority overflows a long", "/items",
				"{\"title\":\"t\",\"priority\":123456789012345678901234567890}", 422, "priority"));
		rows.add(post("priority is 1e400", "/items", "{\"title\":\"t\",\"priority\":1e400}", 422, "priority"));
		rows.add(post("queue has capitals", "/items", "{\"title\":\"t\",\"queue\":\"Main\"}", 422, "queue"));
		rows.add(post("queue is empty", "/items", "{\"title\":\"t\",\"queue\":\"\"}", 422, "queue"));
		rows.add(post("queue has 101 characters", "/items", "{\"title\":\"t\",\"queue\":\"" + "q".repeat(101) + "\"}",
				422, "queue"));
		rows.add(post("metadata over 64 KiB", "/items",
				"{\"title\":\"t\",\"metadata\":{\"k\":\"" + "m".repeat(65_530) + "\"}}", 422, "metadata"));
		// POST /items: NUL and lone surrogates, as JSON escapes
		rows.add(post("NUL in title", "/items", "{\"title\":\"a\\u0000b\"}", 422, "title"));
		rows.add(post("lone high surrogate in title", "/items", "{\"title\":\"a\\ud800\"}", 422, "title"));
		rows.add(post("lone low surrogate in description", "/items", "{\"title\":\"t\",\"description\":\"\\udc00b\"}",
				422, "description"));
		rows.add(post("reversed surrogate pair in title", "/items", "{\"title\":\"\\ude00\\ud83d\"}", 422, "title"));
		rows.add(post("NUL in a metadata value", "/items", "{\"title\":\"t\",\"metadata\":{\"k\":\"\\u0000\"}}", 422,
				"metadata"));
		rows.add(post("NUL in a metadata key", "/items", "{\"title\":\"t\",\"metadata\":{\"k\\u0000\":1}}", 422,
				"metadata"));
		rows.add(post("lone surrogate in a metadata key", "/items", "{\"title\":\"t\",\"metadata\":{\"\\ud800\":1}}",
				422, "metadata"));
		rows.add(post("lone surrogate deep in metadata", "/items",
				"{\"title\":\"t\",\"metadata\":{\"a\":[{\"b\":[\"ok\",\"\\udfff\"]}]}}", 422, "metadata"));
		rows.add(post("lone surrogate in a top-level key", "/items", "{\"title\":\"t\",\"\\ud800\":1}", 422, "body"));
		// POST /items: ids
		rows.add(post("parentId is not a UUID", "/items", "{\"title\":\"t\",\"parentId\":\"not-a-uuid\"}", 422,
				"parentId"));
		rows.add(post("parentId is a number", "/items", "{\"title\":\"t\",\"parentId\":42}", 422, "parentId"));
		rows.add(post("parentId is empty", "/items", "{\"title\":\"t\",\"parentId\":\"\"}", 422, "parentId"));
		rows.add(post("parentId is unknown", "/items", "{\"title\":\"t\",\"parentId\":" + unknownId + "}", 404,
				"not_found"));
		rows.add(post("dependsOn holds a malformed id", "/items", "{\"title\":\"t\",\"dependsOn\":[\"123\"]}", 422,
				"dependsOn[0]"));
		rows.add(post("dependsOn holds an empty id", "/items", "{\"title\":\"t\",\"dependsOn\":[\"\"]}", 422,
				"dependsOn[0]"));
		rows.add(post("dependsOn holds null", "/items", "{\"title\":\"t\",\"dependsOn\":[null]}", 422, "dependsOn[0]"));
		rows.add(post("dependsOn holds an unknown id", "/items",
				"{\"title\":\"t\",\"dependsOn\":[\"{item}\"," + unknownId + "]}", 404, "not_found"));
		rows.add(post("dependsOn lists 100000 ids", "/items",
				() -> "{\"title\":\"t\",\"dependsOn\":[" + IntStream.range(0, 100_000)
					.mapToObj((i) -> "\"" + new UUID(0x0189_0000_0000_7000L, 0x8000_0000_0000_0000L | i) + "\"")
					.collect(Collectors.joining(",")) + "]}",
				422, "dependsOn"));
		// POST /items: not JSON, or not acceptable JSON
		rows.add(post("empty body", "/items", "", 400, "malformed_request"));
		rows.add(post("whitespace body", "/items", "  \r\n\t ", 400, "malformed_request"));
		rows.add(post("JSON null body", "/items", "null", 400, "malformed_request"));
		rows.add(post("not JSON", "/items", "title=t", 400, "malformed_request"));
		rows.add(post("truncated JSON", "/items", "{\"title\":\"t\"", 400, "malformed_request"));
		rows.add(post("trailing comma", "/items", "{\"title\":\"t\",}", 400, "malformed_request"));
		rows.add(post("trailing garbage", "/items", "{\"title\":\"t\"} x", 400, "malformed_request"));
		rows.add(post("two JSON documents", "/items", "{\"title\":\"t\"}{\"title\":\"u\"}", 400, "malformed_request"));
		rows.add(post("duplicate keys", "/items", "{\"title\":\"t\",\"title\":\"u\"}", 400, "malformed_request"));
		rows.add(post("invalid escape", "/items", "{\"title\":\"\\x41\"}", 400, "malformed_request"));
		rows.add(post("single-quoted JSON", "/items", "{'title':'t'}", 400, "malformed_request"));
		rows.add(post("comment in JSON", "/items", "{/* c */\"title\":\"t\"}", 400, "malformed_request"));
		rows.add(post("NaN priority", "/items", "{\"title\":\"t\",\"priority\":NaN}", 400, "malformed_request"));
		rows.add(post("10000-deep arrays", "/items", () -> "[".repeat(10_000) + "]".repeat(10_000), 400,
				"malformed_request"));
		rows.add(post("10000-deep objects", "/items", () -> "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000), 400,
				"malformed_request"));
		rows.add(post("101-deep metadata", "/items",
				() -> "{\"title\":\"t\",\"metadata\":" + "{\"a\":".repeat(100) + "1" + "}".repeat(100) + "}", 400,
				"malformed_request"));
		rows.add(bytes("raw NUL byte in a string", "POST", "/items", "{\"title\":\"a\0b\"}".getBytes(), JSON, 400,
				"malformed_request"));
		rows.add(bytes("invalid UTF-8", "POST", "/items",
				concat("{\"title\":\"a".getBytes(), new byte[] { (byte) 0xff, (byte) 0xfe }, "\"}".getBytes()), JSON,
				400, "malformed_request"));
		rows.add(bytes(
				"UTF-8 encoded surrogate", "POST", "/items", concat("{\"title\":\"a".getBytes(),
						new byte[] { (byte) 0xed, (byte) 0xa0, (byte) 0x80 }, "\"}".getBytes()),
				JSON, 400, "malformed_request"));
		rows.add(bytes("overlong UTF-8", "POST", "/items",
				concat("{\"title\":\"a".getBytes(), new byte[] { (byte) 0xc0, (byte) 0xaf }, "\"}".getBytes()), JSON,
				400, "malformed_request"));
		// POST /items: content types and headers
		rows.add(bytes("text/plain", "POST", "/items", "{\"title\":\"t\"}".getBytes(), "text/plain", 415,
				"unsupported_media_type"));
		rows.add(bytes("no content type", "POST", "/items", "{\"title\":\"t\"}".getBytes(), null, 415,
				"unsupported_media_type"));
		rows.add(bytes("application/xml", "POST", "/items", "<item><title>t</title></item>".getBytes(),
				"application/xml", 415, "unsupported_media_type"));
		rows.add(bytes("form encoded", "POST", "/items", "title=t".getBytes(), "application/x-www-form-urlencoded", 415,
				"unsupported_media_type"));
		rows.add(bytes("multipart", "POST", "/items", "--b\r\n\r\n{}\r\n--b--".getBytes(),
				"multipart/form-data; boundary=b", 415, "unsupported_media_type"));
		rows.add(bytes("malformed content type", "POST", "/items", "{\"title\":\"t\"}".getBytes(), "json", 415,
				"unsupported_media_type"));
		rows.add(post("body of 11 MiB", "/items", () -> new String(oversizedJson(11 * MIB), StandardCharsets.UTF_8),
				413, "payload_too_large"));
		rows.add(post("empty Idempotency-Key", "/items", "{\"title\":\"t\"}", 422, "Idempotency-Key")
			.header("Idempotency-Key", ""));
		rows.add(post("Idempotency-Key of 201 characters", "/items", "{\"title\":\"t\"}", 422, "Idempotency-Key")
			.header("Idempotency-Key", "k".repeat(201)));

		// GET /items
		rows.add(get("limit 0", "/items?limit=0", 422, "limit"));
		rows.add(get("limit 501", "/items?limit=501", 422, "limit"));
		rows.add(get("negative limit", "/items?limit=-5", 422, "limit"));
		rows.add(get("limit not a number", "/items?limit=ten", 422, "limit"));
		rows.add(get("limit overflows", "/items?limit=99999999999", 422, "limit"));
		rows.add(get("unknown status", "/items?status=done", 422, "status"));
		rows.add(get("cursor never issued", "/items?cursor=bm90LWEtY3Vyc29y", 422, "cursor"));
		rows.add(get("cursor not base64", "/items?cursor=***", 422, "cursor"));
		rows.add(get("query string not UTF-8", "/items?cursor=%C0%AF", 400, "malformed_request"));
		rows.add(get("parentId not a UUID", "/items?parentId=nope", 422, "parentId"));
		rows.add(get("queue filter invalid", "/items?queue=Main", 422, "queue"));
		rows.add(get("unknown query parameter workerId", "/items?workerId=x", 422, "workerId"));
		rows.add(get("unknown query parameter sort", "/items?sort=priority", 422, "sort"));
		rows.add(get("status filter with an unknown value among several", "/items?status=ready,done", 422, "status"));
		rows.add(post("create with a query parameter", "/items?queue=x", "{\"title\":\"t\"}", 422, "queue"));
		rows.add(post("claim with a query parameter", "/claims?waitSeconds=5", "{\"workerId\":\"w\"}", 422,
				"waitSeconds"));
		rows.add(post("complete with a query parameter", "/leases/{lease}/complete?force=1", "{\"epoch\":{epoch}}", 422,
				"force"));
		// GET /items/{id} and /items/{id}/leases
		rows.add(get("item id not a UUID", "/items/not-a-uuid", 404, "not_found"));
		rows.add(get("item id is blank", "/items/%20", 404, "not_found"));
		rows.add(get("item id with a matrix parameter", "/items/abc;x=1", 404, "not_found"));
		rows.add(get("item id unknown", "/items/{unknown}", 404, "not_found"));
		rows.add(get("item id with overlong UTF-8", "/items/%C0%AF", 400, "malformed_request"));
		rows.add(get("item id with an encoded slash", "/items/a%2Fb", 400, "malformed_request"));
		rows.add(get("item id with trailing junk", "/items/{item}0", 404, "not_found"));
		rows.add(get("leases of a malformed item id", "/items/12345/leases", 404, "not_found"));
		rows.add(get("leases of an unknown item", "/items/{unknown}/leases", 404, "not_found"));
		// POST /items/{id}/dependencies and DELETE
		rows.add(post("dependency id malformed", "/items/{item}/dependencies", "{\"dependsOn\":\"x\"}", 422,
				"dependsOn"));
		rows.add(post("dependency id missing", "/items/{item}/dependencies", "{}", 422, "dependsOn"));
		rows.add(post("dependency id a number", "/items/{item}/dependencies", "{\"dependsOn\":5}", 422, "dependsOn"));
		rows.add(post("dependency id in an array", "/items/{item}/dependencies", "{\"dependsOn\":[\"{leasedItem}\"]}",
				422, "dependsOn"));
		rows.add(post("dependency unknown", "/items/{item}/dependencies", "{\"dependsOn\":" + unknownId + "}", 404,
				"not_found"));
		rows.add(post("dependency on itself", "/items/{item}/dependencies", "{\"dependsOn\":\"{item}\"}", 422,
				"dependency_cycle"));
		rows.add(post("dependency with an unknown field", "/items/{item}/dependencies",
				"{\"dependsOn\":\"{leasedItem}\",\"why\":1}", 422, "why"));
		rows.add(post("dependency of a malformed item id", "/items/nope/dependencies",
				"{\"dependsOn\":\"{leasedItem}\"}", 404, "not_found"));
		rows.add(post("dependency of an unknown item", "/items/{unknown}/dependencies",
				"{\"dependsOn\":\"{leasedItem}\"}", 404, "not_found"));
		rows.add(post("dependency with an empty body", "/items/{item}/dependencies", "", 400, "malformed_request"));
		rows.add(bytes("dependency as text/plain", "POST", "/items/{item}/dependencies",
				"{\"dependsOn\":\"{leasedItem}\"}".getBytes(), "text/plain", 415, "unsupported_media_type"));
		rows.add(bytes("remove dependency with a malformed target", "DELETE", "/items/{item}/dependencies/nope", null,
				null, 404, "not_found"));
		rows.add(bytes("remove dependency of a malformed item", "DELETE", "/items/nope/dependencies/{item}", null, null,
				404, "not_found"));
		rows.add(bytes("remove a dependency that does not exist", "DELETE", "/items/{item}/dependencies/{leasedItem}",
				null, null, 404, "not_found"));
		// POST /items/{id}/cancel
		rows.add(post("cancel reason is a number", "/items/{item}/cancel", "{\"reason\":5}", 422, "reason"));
		rows.add(post("cancel reason has 2001 characters", "/items/{item}/cancel",
				"{\"reason\":\"" + "r".repeat(2001) + "\"}", 422, "reason"));
		rows.add(post("NUL in cancel reason", "/items/{item}/cancel", "{\"reason\":\"\\u0000\"}", 422, "reason"));
		rows.add(post("lone surrogate in cancel reason", "/items/{item}/cancel", "{\"reason\":\"\\ud800\"}", 422,
				"reason"));
		rows.add(post("cancel with an unknown field", "/items/{item}/cancel", "{\"force\":true}", 422, "force"));
		rows.add(post("cancel body is an array", "/items/{item}/cancel", "[]", 422, null));
		rows.add(post("cancel body is malformed", "/items/{item}/cancel", "{\"reason\":", 400, "malformed_request"));
		rows.add(post("cancel a malformed item id", "/items/nope/cancel", "{}", 404, "not_found"));
		rows.add(post("cancel an unknown item", "/items/{unknown}/cancel", "{}", 404, "not_found"));

		// POST /claims
		rows.add(post("claim without workerId", "/claims", "{}", 422, "workerId"));
		rows.add(post("workerId is a number", "/claims", "{\"workerId\":1}", 422, "workerId"));
		rows.add(post("workerId is an array", "/claims", "{\"workerId\":[\"w\"]}", 422, "workerId"));
		rows.add(post("workerId is empty", "/claims", "{\"workerId\":\"\"}", 422, "workerId"));
		rows.add(post("workerId has 201 characters", "/claims", "{\"workerId\":\"" + "w".repeat(201) + "\"}", 422,
				"workerId"));
		rows.add(post("NUL in workerId", "/claims", "{\"workerId\":\"w\\u0000\"}", 422, "workerId"));
		rows.add(post("lone surrogate in workerId", "/claims", "{\"workerId\":\"\\udbff\"}", 422, "workerId"));
		rows.add(post("queues is empty", "/claims", "{\"workerId\":\"w\",\"queues\":[]}", 422, "queues"));
		rows.add(post("queues is a string", "/claims", "{\"workerId\":\"w\",\"queues\":\"default\"}", 422, "queues"));
		rows.add(post("queues holds an invalid name", "/claims", "{\"workerId\":\"w\",\"queues\":[\"Main\"]}", 422,
				"queues[0]"));
		rows.add(post("queues holds null", "/claims", "{\"workerId\":\"w\",\"queues\":[null]}", 422, "queues[0]"));
		rows.add(post("queues holds a number", "/claims", "{\"workerId\":\"w\",\"queues\":[\"default\",1]}", 422,
				"queues[1]"));
		rows.add(post("leaseSeconds 0", "/claims", "{\"workerId\":\"w\",\"leaseSeconds\":0}", 422, "leaseSeconds"));
		rows.add(post("leaseSeconds negative", "/claims", "{\"workerId\":\"w\",\"leaseSeconds\":-1}", 422,
				"leaseSeconds"));
		rows.add(post("leaseSeconds above a day", "/claims", "{\"workerId\":\"w\",\"leaseSeconds\":86401}", 422,
				"leaseSeconds"));
		rows.add(post("leaseSeconds overflows", "/claims", "{\"workerId\":\"w\",\"leaseSeconds\":2147483648}", 422,
				"leaseSeconds"));
		rows.add(post("leaseSeconds hugely negative", "/claims",
				"{\"workerId\":\"w\",\"leaseSeconds\":-9223372036854775809}", 422, "leaseSeconds"));
		rows.add(post("leaseSeconds is a fraction", "/claims", "{\"workerId\":\"w\",\"leaseSeconds\":1.5}", 422,
				"leaseSeconds"));
		rows.add(post("leaseSeconds in exponent form", "/claims", "{\"workerId\":\"w\",\"leaseSeconds\":1e10}", 422,
				"leaseSeconds"));
		rows.add(post("leaseSeconds is a string", "/claims", "{\"workerId\":\"w\",\"leaseSeconds\":\"30\"}", 422,
				"leaseSeconds"));
		rows.add(
				post("claim with an unknown field", "/claims", "{\"workerId\":\"w\",\"priority\":1}", 422, "priority"));
		rows.add(post("claim with an empty body", "/claims", "", 400, "malformed_request"));
		rows.add(post("claim with deep JSON", "/claims", () -> "[".repeat(10_000) + "]".repeat(10_000), 400,
				"malformed_request"));
		rows.add(bytes("claim as text/plain", "POST", "/claims", "{\"workerId\":\"w\"}".getBytes(), "text/plain", 415,
				"unsupported_media_type"));

		// /leases/{id}
		rows.add(get("lease id malformed", "/leases/not-a-lease", 404, "not_found"));
		rows.add(get("lease id unknown", "/leases/{unknown}", 404, "not_found"));
		rows.add(post("renew without epoch", "/leases/{lease}/renew", "{}", 422, "epoch"));
		rows.add(post("renew with a string epoch", "/leases/{lease}/renew", "{\"epoch\":\"{epoch}\"}", 422, "epoch"));
		rows.add(post("renew with a fractional epoch", "/leases/{lease}/renew", "{\"epoch\":1.5}", 422, "epoch"));
		rows.add(post("renew with epoch 1e30", "/leases/{lease}/renew", "{\"epoch\":1e30}", 422, "epoch"));
		rows.add(post("renew with an overflowing epoch", "/leases/{lease}/renew", "{\"epoch\":99999999999999999999}",
				422, "epoch"));
		rows.add(post("renew with a null epoch", "/leases/{lease}/renew", "{\"epoch\":null}", 422, "epoch"));
		rows.add(post("renew for -5 seconds", "/leases/{lease}/renew", "{\"epoch\":{epoch},\"leaseSeconds\":-5}", 422,
				"leaseSeconds"));
		rows.add(post("renew for 86401 seconds", "/leases/{lease}/renew", "{\"epoch\":{epoch},\"leaseSeconds\":86401}",
				422, "leaseSeconds"));
		rows.add(post("renew for 2^40 seconds", "/leases/{lease}/renew",
				"{\"epoch\":{epoch},\"leaseSeconds\":1099511627776}", 422, "leaseSeconds"));
		rows.add(post("renew with a stale epoch", "/leases/{lease}/renew", "{\"epoch\":999}", 409, "epoch_mismatch"));
		rows.add(post("renew a malformed lease id", "/leases/nope/renew", "{\"epoch\":1}", 404, "not_found"));
		rows.add(post("renew an unknown lease", "/leases/{unknown}/renew", "{\"epoch\":1}", 404, "not_found"));
		rows.add(post("complete with NUL in the result", "/leases/{lease}/complete",
				"{\"epoch\":{epoch},\"result\":\"\\u0000\"}", 422, "result"));
		rows.add(post("complete with NUL in a result key", "/leases/{lease}/complete",
				"{\"epoch\":{epoch},\"result\":{\"k\\u0000\":1}}", 422, "result"));
		rows.add(post("complete with a lone surrogate in a result key", "/leases/{lease}/complete",
				"{\"epoch\":{epoch},\"result\":{\"\\udc00\":1}}", 422, "result"));
		rows.add(post("complete with a lone surrogate in a result value", "/leases/{lease}/complete",
				"{\"epoch\":{epoch},\"result\":[\"\\ud800x\"]}", 422, "result"));
		rows.add(post("complete with a result over 64 KiB", "/leases/{lease}/complete",
				"{\"epoch\":{epoch},\"result\":{\"k\":\"" + "r".repeat(65_530) + "\"}}", 422, "result"));
		rows.add(post("complete without epoch", "/leases/{lease}/complete", "{\"result\":{}}", 422, "epoch"));
		rows.add(post("complete with a 101-deep result", "/leases/{lease}/complete",
				() -> "{\"epoch\":{epoch},\"result\":" + "[".repeat(100) + "]".repeat(100) + "}", 400,
				"malformed_request"));
		rows.add(post("complete a malformed lease id", "/leases/xyz/complete", "{\"epoch\":1}", 404, "not_found"));
		rows.add(post("release with a reason of 2001 characters", "/leases/{lease}/release",
				"{\"epoch\":{epoch},\"reason\":\"" + "r".repeat(2001) + "\"}", 422, "reason"));
		rows.add(post("release with a reason that is an array", "/leases/{lease}/release",
				"{\"epoch\":{epoch},\"reason\":[\"r\"]}", 422, "reason"));
		rows.add(post("release with a reason that is a boolean", "/leases/{lease}/release",
				"{\"epoch\":{epoch},\"reason\":true}", 422, "reason"));
		rows.add(post("release without epoch", "/leases/{lease}/release", "{\"reason\":\"r\"}", 422, "epoch"));
		rows.add(post("release with an empty body", "/leases/{lease}/release", "", 400, "malformed_request"));
		rows.add(post("lease cancel with NUL in the reason", "/leases/{lease}/cancel",
				"{\"epoch\":{epoch},\"reason\":\"\\u0000\"}", 422, "reason"));
		rows.add(post("lease cancel with a string epoch", "/leases/{lease}/cancel", "{\"epoch\":\"x\"}", 422, "epoch"));
		rows.add(post("lease cancel of a malformed lease id", "/leases/-1/cancel", "{\"epoch\":1}", 404, "not_found"));
		// POST /leases/{id}/decompose
		rows.add(post("decompose into no children", "/leases/{lease}/decompose", "{\"epoch\":{epoch},\"children\":[]}",
				422, "children"));
		rows.add(post("decompose without children", "/leases/{lease}/decompose", "{\"epoch\":{epoch}}", 422,
				"children"));
		rows.add(post("decompose children is an object", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":{}}", 422, "children"));
		rows.add(post("decompose into 10000 children", "/leases/{lease}/decompose",
				() -> "{\"epoch\":{epoch},\"children\":[" + IntStream.range(0, 10_000)
					.mapToObj((i) -> "{\"key\":\"k" + i + "\",\"title\":\"child " + i + "\"}")
					.collect(Collectors.joining(",")) + "]}",
				422, "children"));
		rows.add(post("decompose with duplicate keys", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"t\"},{\"key\":\"a\",\"title\":\"u\"}]}",
				422, "children[1].key"));
		rows.add(post("decompose child without title", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\"}]}", 422, "children[0].title"));
		rows.add(post("decompose child title is a number", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":7}]}", 422, "children[0].title"));
		rows.add(post("decompose child key is empty", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"\",\"title\":\"t\"}]}", 422, "children[0].key"));
		rows.add(post("decompose child key has 101 characters", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"" + "k".repeat(101) + "\",\"title\":\"t\"}]}", 422,
				"children[0].key"));
		rows.add(post("decompose child queue invalid", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"t\",\"queue\":\"A B\"}]}", 422,
				"children[0].queue"));
		rows.add(post("decompose child priority out of range", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"t\",\"priority\":5000}]}", 422,
				"children[0].priority"));
		rows.add(post("decompose child metadata with NUL", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"t\",\"metadata\":{\"\\u0000\":1}}]}", 422,
				"children[0].metadata"));
		rows.add(post("decompose child with an unknown field", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"t\",\"parentId\":\"{item}\"}]}", 422,
				"children[0].parentId"));
		rows.add(post("decompose child is null", "/leases/{lease}/decompose", "{\"epoch\":{epoch},\"children\":[null]}",
				422, "children[0]"));
		rows.add(post("decompose child depends on nothing known", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"t\",\"dependsOn\":[\"b\"]}]}", 422,
				"children[0].dependsOn[0]"));
		rows.add(post("decompose child depends on an unknown item", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"t\",\"dependsOn\":[" + unknownId + "]}]}",
				404, "not_found"));
		rows.add(post("decompose child depends on itself", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"t\",\"dependsOn\":[\"a\"]}]}", 422,
				"dependency_cycle"));
		rows.add(post("decompose children depend on each other", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"t\",\"dependsOn\":[\"b\"]},"
						+ "{\"key\":\"b\",\"title\":\"u\",\"dependsOn\":[\"a\"]}]}",
				422, "dependency_cycle"));
		rows.add(post("decompose with a reason of 2001 characters", "/leases/{lease}/decompose",
				"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"t\"}],\"reason\":\"" + "r".repeat(2001)
						+ "\"}",
				422, "reason"));
		rows.add(post("decompose without epoch", "/leases/{lease}/decompose",
				"{\"children\":[{\"key\":\"a\",\"title\":\"t\"}]}", 422, "epoch"));
		// POST /leases/{id}/attention-requests
		rows.add(
				post("question missing", "/leases/{lease}/attention-requests", "{\"epoch\":{epoch}}", 422, "question"));
		rows.add(post("question empty", "/leases/{lease}/attention-requests", "{\"epoch\":{epoch},\"question\":\"\"}",
				422, "question"));
		rows.add(post("question has 20001 characters", "/leases/{lease}/attention-requests",
				"{\"epoch\":{epoch},\"question\":\"" + "q".repeat(20_001) + "\"}", 422, "question"));
		rows.add(post("question is a number", "/leases/{lease}/attention-requests",
				"{\"epoch\":{epoch},\"question\":42}", 422, "question"));
		rows.add(post("blocking is a string", "/leases/{lease}/attention-requests",
				"{\"epoch\":{epoch},\"question\":\"q\",\"blocking\":\"yes\"}", 422, "blocking"));
		rows.add(post("blocking is a number", "/leases/{lease}/attention-requests",
				"{\"epoch\":{epoch},\"question\":\"q\",\"blocking\":1}", 422, "blocking"));
		rows.add(post("context is an array", "/leases/{lease}/attention-requests",
				"{\"epoch\":{epoch},\"question\":\"q\",\"context\":[]}", 422, "context"));
		rows.add(post("NUL in a context value", "/leases/{lease}/attention-requests",
				"{\"epoch\":{epoch},\"question\":\"q\",\"context\":{\"k\":[\"\\u0000\"]}}", 422, "context"));
		rows.add(post("lone surrogate in a context key", "/leases/{lease}/attention-requests",
				"{\"epoch\":{epoch},\"question\":\"q\",\"context\":{\"a\":{\"\\ud800\":1}}}", 422, "context.a"));
		rows.add(post("context over 64 KiB", "/leases/{lease}/attention-requests",
				"{\"epoch\":{epoch},\"question\":\"q\",\"context\":{\"k\":\"" + "c".repeat(65_530) + "\"}}", 422,
				"context"));
		rows.add(post("attention request without epoch", "/leases/{lease}/attention-requests", "{\"question\":\"q\"}",
				422, "epoch"));
		rows.add(post("attention request on a malformed lease id", "/leases/1/attention-requests",
				"{\"epoch\":1,\"question\":\"q\"}", 404, "not_found"));
		// /attention-requests
		rows.add(post("resolve with an empty object", "/attention-requests/{attention}/resolve", "{}", 422,
				"resolution"));
		rows.add(post("resolution empty", "/attention-requests/{attention}/resolve",
				"{\"resolution\":\"\",\"resolvedBy\":\"ana\"}", 422, "resolution"));
		rows.add(post("resolution has 20001 characters", "/attention-requests/{attention}/resolve",
				"{\"resolution\":\"" + "r".repeat(20_001) + "\",\"resolvedBy\":\"ana\"}", 422, "resolution"));
		rows.add(post("NUL in resolution", "/attention-requests/{attention}/resolve",
				"{\"resolution\":\"a\\u0000\",\"resolvedBy\":\"ana\"}", 422, "resolution"));
		rows.add(post("resolvedBy empty", "/attention-requests/{attention}/resolve",
				"{\"resolution\":\"r\",\"resolvedBy\":\"\"}", 422, "resolvedBy"));
		rows.add(post("resolvedBy has 201 characters", "/attention-requests/{attention}/resolve",
				"{\"resolution\":\"r\",\"resolvedBy\":\"" + "b".repeat(201) + "\"}", 422, "resolvedBy"));
		rows.add(post("resolvedBy is a number", "/attention-requests/{attention}/resolve",
				"{\"resolution\":\"r\",\"resolvedBy\":5}", 422, "resolvedBy"));
		rows.add(post("lone surrogate in resolvedBy", "/attention-requests/{attention}/resolve",
				"{\"resolution\":\"r\",\"resolvedBy\":\"\\udc00\"}", 422, "resolvedBy"));
		rows.add(post("resolve with an unknown field", "/attention-requests/{attention}/resolve",
				"{\"resolution\":\"r\",\"resolvedBy\":\"ana\",\"status\":\"resolved\"}", 422, "status"));
		rows.add(post("resolve a malformed id", "/attention-requests/nope/resolve",
				"{\"resolution\":\"r\",\"resolvedBy\":\"ana\"}", 404, "not_found"));
		rows.add(post("resolve an unknown id", "/attention-requests/{unknown}/resolve",
				"{\"resolution\":\"r\",\"resolvedBy\":\"ana\"}", 404, "not_found"));
		rows.add(bytes("resolve as text/plain", "POST", "/attention-requests/{attention}/resolve",
				"{\"resolution\":\"r\",\"resolvedBy\":\"ana\"}".getBytes(), "text/plain", 415,
				"unsupported_media_type"));
		rows.add(get("attention requests with an unknown status", "/attention-requests?status=closed", 422, "status"));
		rows.add(get("attention requests of a malformed item id", "/attention-requests?itemId=nope", 422, "itemId"));
		rows.add(get("attention requests with limit 0", "/attention-requests?limit=0", 422, "limit"));
		rows.add(get("attention requests with limit 501", "/attention-requests?limit=501", 422, "limit"));
		rows.add(get("attention requests with a bad cursor", "/attention-requests?cursor=zzz", 422, "cursor"));
		rows.add(get("attention request id malformed", "/attention-requests/nope", 404, "not_found"));

		// Routing
		rows.add(bytes("PUT an item", "PUT", "/items/{item}", "{}".getBytes(), JSON, 405, "method_not_allowed"));
		rows.add(bytes("DELETE claims", "DELETE", "/claims", null, null, 405, "method_not_allowed"));
		rows.add(bytes("PATCH a lease", "PATCH", "/leases/{lease}", "{}".getBytes(), JSON, 405, "method_not_allowed"));
		rows.add(get("GET the error path", "/error", 404, "not_found"));
		rows.add(get("unknown path", "/work-items", 404, "not_found"));
		return rows;
	}

	private Fixtures fixtures() {
		UUID leasedItem = createItem("leased", "priority", 1000);
		JsonNode claim = claim("catalogue-worker");
		assertThat(itemId(claim)).isEqualTo(leasedItem);
		UUID item = createItem("ready");
		Api.Response attention = this.api.post("/leases/" + leaseId(claim) + "/attention-requests",
				Map.of("epoch", epoch(claim), "question", "which way?", "blocking", false));
		assertThat(attention.status()).as(attention.toString()).isEqualTo(201);
		Map<String, String> values = new LinkedHashMap<>();
		values.put("{item}", item.toString());
		values.put("{leasedItem}", leasedItem.toString());
		values.put("{lease}", leaseId(claim).toString());
		values.put("{epoch}", Long.toString(epoch(claim)));
		values.put("{attention}", attention.id().toString());
		values.put("{unknown}", "01890000-0000-7000-8000-00000000dead");
		return new Fixtures(values);
	}

	private Api.Response send(Hostile hostile, Fixtures fixtures) {
		Map<String, String> headers = new LinkedHashMap<>(hostile.headers());
		if (hostile.contentType() != null) {
			headers.put("Content-Type", hostile.contentType());
		}
		byte[] body = null;
		if (hostile.body() != null) {
			body = hostile.body().get();
			// Only small bodies mention fixtures; the large ones are sent as built.
			if (body.length < 1_000_000) {
				body = fixtures.resolve(new String(body, StandardCharsets.ISO_8859_1))
					.getBytes(StandardCharsets.ISO_8859_1);
			}
		}
		return this.api.raw(hostile.method(), fixtures.resolve(hostile.path()), body, headers);
	}

	/**
	 * Streams a JSON body of the given size without a Content-Length, so it goes out
	 * chunked.
	 */
	private Api.Response sendChunked(String path, int size) throws IOException, InterruptedException {
		HttpClient client = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.api.base() + path))
			.header("Content-Type", JSON)
			.timeout(Duration.ofSeconds(60))
			.POST(HttpRequest.BodyPublishers.ofInputStream(() -> new JsonStream(size)))
			.build();
		HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
		JsonNode body = response.body().isEmpty() ? MAPPER.missingNode() : MAPPER.readTree(response.body());
		return new Api.Response(response.statusCode(), body, response);
	}

	private static void assertProblem(Api.Response response, int status, String code, String name) {
		assertThat(response.status()).as(name + ": " + response).isEqualTo(status);
		assertThat(response.header("Content-Type")).as(name).startsWith("application/problem+json");
		JsonNode problem = response.body();
		ProblemBodies.assertWellFormed(response.raw().body(), status, name);
		assertThat(problem.path("code").asString()).as(name + ": " + response).isEqualTo(code);
		assertThat(problem.path("status").asInt()).as(name).isEqualTo(status);
		assertThat(problem.path("type").asString()).as(name).isEqualTo("urn:workgraph:problem:" + code);
		assertThat(problem.path("title").asString()).as(name).isNotBlank();
		assertThat(problem.path("detail").asString()).as(name).isNotBlank();
		if (code.equals("validation_failed")) {
			assertThat(problem.path("errors").isArray()).as(name).isTrue();
			assertThat(problem.path("errors").size()).as(name).isPositive();
		}
		for (String internal : INTERNALS) {
			assertThat(response.raw().body()).as(name + " leaks internals").doesNotContain(internal);
		}
	}

	/** A syntactically valid JSON object of exactly {@code size} bytes. */
	static byte[] oversizedJson(int size) {
		byte[] body = new byte[size];
		byte[] head = "{\"title\":\"".getBytes(StandardCharsets.US_ASCII);
		System.arraycopy(head, 0, body, 0, head.length);
		java.util.Arrays.fill(body, head.length, size - 2, (byte) 'x');
		body[size - 2] = '"';
		body[size - 1] = '}';
		return body;
	}

	private static byte[] concat(byte[]... parts) {
		int length = 0;
		for (byte[] part : parts) {
			length += part.length;
		}
		byte[] all = new byte[length];
		int at = 0;
		for (byte[] part : parts) {
			System.arraycopy(part, 0, all, at, part.length);
			at += part.length;
		}
		return all;
	}

	private static Hostile post(String name, String path, String body, int status, String fieldOrCode) {
		return post(name, path, () -> body, status, fieldOrCode);
	}

	private static Hostile post(String name, String path, Supplier<String> body, int status, String fieldOrCode) {
		return new Hostile(name, "POST", path, () -> body.get().getBytes(StandardCharsets.UTF_8), JSON, Map.of(),
				status, code(status, fieldOrCode), field(status, fieldOrCode));
	}

	private static Hostile get(String name, String path, int status, String fieldOrCode) {
		return new Hostile(name, "GET", path, null, null, Map.of(), status, code(status, fieldOrCode),
				field(status, fieldOrCode));
	}

	private static Hostile bytes(String name, String method, String path, byte[] body, String contentType, int status,
			String code) {
		return new Hostile(name, method, path, (body != null) ? () -> body : null, contentType, Map.of(), status, code,
				null);
	}

	/**
	 * For a 422 the last argument names the bad field (or a code other than
	 * validation_failed).
	 */
	private static String code(int status, String fieldOrCode) {
		if (status == 422 && (fieldOrCode == null || !fieldOrCode.equals("dependency_cycle"))) {
			return "validation_failed";
		}
		return fieldOrCode;
	}

	private static String field(int status, String fieldOrCode) {
		return (status == 422 && !"dependency_cycle".equals(fieldOrCode)) ? fieldOrCode : null;
	}

	/**
	 * One hostile request and the problem it must get; {@code field}, when set, must be
	 * named in the problem's {@code errors}.
	 */
	record Hostile(String name, String method, String path, Supplier<byte[]> body, String contentType,
			Map<String, String> headers, int status, String code, String field) {

		Hostile header(String name, String value) {
			Map<String, String> headers = new LinkedHashMap<>(this.headers);
			headers.put(name, value);
			return new Hostile(this.name, this.method, this.path, this.body, this.contentType, headers, this.status,
					this.code, this.field);
		}

	}

	record Fixtures(Map<String, String> values) {

		String resolve(String text) {
			String resolved = text;
			for (Map.Entry<String, String> value : this.values.entrySet()) {
				resolved = resolved.replace(value.getKey(), value.getValue());
			}
			return resolved;
		}

	}

	/** {"title":"xxx…"} of the given size, produced on the fly. */
	private static final class JsonStream extends InputStream {

		private static final byte[] HEAD = "{\"title\":\"".getBytes(StandardCharsets.US_ASCII);

		private final int size;

		private int position;

		JsonStream(int size) {
			this.size = size;
		}

		@Override
		public int read() {
			if (this.position >= this.size) {
				return -1;
			}
			int at = this.position++;
			if (at < HEAD.length) {
				return HEAD[at];
			}
			if (at == this.size - 2) {
				return '"';
			}
			return (at == this.size - 1) ? '}' : 'x';
		}

		@Override
		public int read(byte[] buffer, int offset, int length) {
			if (this.position >= this.size) {
				return -1;
			}
			int count = Math.min(length, this.size - this.position);
			for (int i = 0; i < count; i++) {
				buffer[offset + i] = (byte) read();
			}
			return count;
		}

	}

}
