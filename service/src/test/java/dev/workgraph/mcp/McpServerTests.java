package dev.workgraph.mcp;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model works items through {@code /mcp} with the SDK's own client: the session holds
 * the lease, and a session whose lease was lost gets a tool error and writes nothing.
 * Access control is on (MCP is for worker tokens) and the reaper runs, since a test lets
 * a lease expire and be granted again. Leases here are long enough that no renewal comes
 * between a test's steps: {@link McpRenewalTests} is about renewal.
 */
@TestPropertySource(properties = { "workgraph.security.enabled=true",
		"workgraph.security.bootstrap-admin-token=" + McpServerTests.ADMIN_TOKEN, "workgraph.lease.reaper-enabled=true",
		"workgraph.lease.reaper-interval=200ms", "workgraph.mcp.lease-seconds=300" })
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class McpServerTests extends McpTest {

	static final String ADMIN_TOKEN = "mcp-tests-bootstrap-admin-token";

	@Override
	String adminToken() {
		return ADMIN_TOKEN;
	}

	@Test
	void theToolsAreListedWithDescriptionsForAModel() {
		try (ModelSession model = new ModelSession(this.port, workerToken("lister"))) {
			List<McpSchema.Tool> tools = model.client().listTools().tools();
			assertThat(tools).extracting(McpSchema.Tool::name)
				.containsExactlyInAnyOrder("claim_work", "get_item", "checkpoint", "complete_work", "release_work",
						"fail_work", "ask_human", "decompose", "wait_for_event", "create_item");
			assertThat(tools).allSatisfy((tool) -> assertThat(tool.description()).hasSizeGreaterThan(100));
			assertThat(model.client().getServerInstructions()).contains("claim_work");
		}
	}

	@Test
	void theMcpInspectorListsTheTools(@TempDir Path directory) throws Exception {
		InspectorCli inspector = InspectorCli.installed();
		String output = inspector.call("http://127.0.0.1:" + this.port + "/mcp", workerToken("inspector"), "tools/list",
				directory);
		assertThat(output).as(output)
			.startsWith("exit code 0")
			.contains("\"claim_work\"", "\"get_item\"", "\"checkpoint\"", "\"complete_work\"", "\"release_work\"",
					"\"fail_work\"", "\"ask_human\"", "\"decompose\"", "\"wait_for_event\"", "\"create_item\"");
	}

	@Test
	void aModelWorksAnItemFromClaimThroughAQuestionToCompletion() {
		UUID itemId = itemIn("Rotate the keys", "ops");
		try (ModelSession model = new ModelSession(this.port, workerToken("model-1"))) {
			JsonNode claimed = model.ok("claim_work", Map.of("queues", List.of("ops")));
			assertThat(claimed.path("claimed").asBoolean()).isTrue();
			assertThat(claimed.path("item").path("id").asString()).isEqualTo(itemId.toString());
			assertThat(model.error("claim_work", Map.of())).contains("You already hold item " + itemId);
			JsonNode saved = model.ok("checkpoint", Map.of("data", Map.of("rotated", List.of("k1", "k2"))));
			assertThat(saved.path("checkpoint").path("seq").asLong()).isEqualTo(1);
			assertThat(saved.path("checkpoint").has("epoch")).isFalse();
			assertThat(saved.path("holding").asBoolean()).isTrue();

			JsonNode asked = model.ok("ask_human",
					Map.of("question", "Production keys too, or staging only?", "context", Map.of("keys", 12)));
			assertThat(asked.path("holding").asBoolean()).isFalse();
			assertThat(statusOf(itemId)).isEqualTo("blocked");
			assertThat(model.error("complete_work", Map.of())).contains("You hold no item");

			JsonNode open = model.ok("get_item", Map.of());
			assertThat(open.path("item").path("attentionRequests").get(0).path("status").asString()).isEqualTo("open");
			String requestId = open.path("item").path("attentionRequests").get(0).path("id").asString();
			Api.Response resolved = operator().post("/attention-requests/" + requestId + "/resolve",
					Map.of("resolution", "Staging only this week."));
			assertThat(resolved.status()).as(resolved.toString()).isEqualTo(200);

			JsonNode answered = model.ok("get_item", Map.of());
			assertThat(answered.path("item").path("attentionRequests").get(0).path("resolution").asString())
				.isEqualTo("Staging only this week.");
			assertThat(answered.path("item").path("status").asString()).isEqualTo("ready");

			JsonNode again = model.ok("claim_work", Map.of("queues", List.of("ops")));
			assertThat(again.path("item").path("id").asString()).isEqualTo(itemId.toString());
			assertThat(again.path("item").path("checkpoint").path("data").path("rotated").get(1).asString())
				.as("the next holder resumes from the checkpoint")
				.isEqualTo("k2");
			assertThat(again.path("item").path("checkpoint").has("leaseId")).isFalse();
			JsonNode completed = model.ok("complete_work", Map.of("result", Map.of("rotated", "staging")));
			assertThat(completed.path("item").path("status").asString()).isEqualTo("completed");
		}
		JsonNode item = read(itemId);
		assertThat(item.path("result").path("rotated").asString()).isEqualTo("staging");
		assertThat(this.jdbc.sql("select outcome from lease_history where item_id = :id order by epoch")
			.param("id", itemId)
			.query(String.class)
			.list()).containsExactly("attention_requested", "completed");
	}

	@Test
	void aModelWaitsForCiAndResumesWithTheEventsPayload() {
		UUID itemId = itemIn("Merge once CI passes", "merging");
		try (ModelSession model = new ModelSession(this.port, workerToken("model-ci"))) {
			model.ok("claim_work", Map.of("queues", List.of("merging")));
			JsonNode waiting = model.ok("wait_for_event",
					Map.of("name", "ci.finished", "key", "acme/api@4f2c", "timeoutSeconds", 3600));
			assertThat(waiting.path("waiting").asBoolean()).isTrue();
			assertThat(waiting.path("holding").asBoolean()).isFalse();
			assertThat(waiting.path("wait").has("epoch")).isFalse();
			assertThat(statusOf(itemId)).isEqualTo("blocked");
			assertThat(model.error("checkpoint", Map.of("data", Map.of("x", 1)))).contains("You hold no item");
			Api.Response event = operator().post("/events",
					Map.of("name", "ci.finished", "key", "acme/api@4f2c", "payload", Map.of("conclusion", "success")));
			assertThat(event.status()).as(event.toString()).isEqualTo(202);
			JsonNode again = model.ok("claim_work", Map.of("queues", List.of("merging")));
			assertThat(again.path("item").path("id").asString()).isEqualTo(itemId.toString());
			JsonNode wait = again.path("item").path("waits").get(0);
			assertThat(wait.path("matchedEvent").path("payload").path("conclusion").asString()).isEqualTo("success");
			assertThat(wait.has("leaseId")).isFalse();
			model.ok("complete_work", Map.of("result", "merged"));
		}
		assertThat(this.jdbc.sql("select outcome from lease_history where item_id = :id order by epoch")
			.param("id", itemId)
			.query(String.class)
			.list()).containsExactly("waiting", "completed");
	}

	@Test
	void aModelFilesAFollowUpItemOnlyWithATokenAllowedToCreateItems() {
		UUID itemId = itemIn("Upgrade the parser", "parsing");
		try (ModelSession model = new ModelSession(this.port, workerToken("plain-model"))) {
			assertThat(model.error("create_item", Map.of("title", "Fix the lexer too"))).contains("Nothing was created")
				.contains("createItems");
		}
		assertThat(this.jdbc.sql("select count(*) from work_items where title = 'Fix the lexer too'")
			.query(Long.class)
			.single()).isZero();
		Api.Response token = operator().post("/tokens", Map.of("name", "agent filer", "role", "worker", "workerId",
				"filer", "createItems", true, "queues", List.of("parsing")));
		assertThat(token.status()).as(token.toString()).isEqualTo(201);
		try (ModelSession model = new ModelSession(this.port, token.body().path("token").asString())) {
			model.ok("claim_work", Map.of("queues", List.of("parsing")));
			JsonNode filed = model.ok("create_item", Map.of("title", "Fix the lexer too", "queue", "parsing",
					"priority", 3, "dependsOn", List.of(itemId.toString())));
			assertThat(filed.path("created").asBoolean()).isTrue();
			assertThat(filed.path("holding").asBoolean()).as("what it holds is untouched").isTrue();
			assertThat(filed.path("item").path("status").asString()).isEqualTo("blocked");
			assertThat(statusOf(itemId)).isEqualTo("leased");
			assertThat(model.error("create_item", Map.of("title", "Elsewhere", "queue", "other")))
				.contains("Nothing was created");
		}
	}

	@Test
	void aSessionWhoseLeaseWasReapedAndGrantedAgainGetsAToolErrorAndWritesNothing() {
		UUID itemId = itemIn("Backfill invoices", "stale");
		try (ModelSession model = new ModelSession(this.port, workerToken("model-a"))) {
			claimedThenRegranted(model, itemId, "stale", "model-b");
			String before = fingerprint(itemId);

			assertThat(model.error("complete_work", Map.of("result", Map.of("by", "the stale model"))))
				.contains("You no longer hold this item (lease_expired)")
				.contains("Nothing was written");
			assertThat(model.error("ask_human", Map.of("question", "May I still?")))
				.contains("You no longer hold this item");
			assertThat(model.error("release_work", Map.of())).contains("You no longer hold this item");
			assertThat(model.error("checkpoint", Map.of("data", Map.of("by", "the stale model"))))
				.contains("You no longer hold this item");

			assertThat(fingerprint(itemId)).isEqualTo(before);
			JsonNode item = read(itemId);
			assertThat(item.path("status").asString()).isEqualTo("leased");
			assertThat(item.path("lease").path("workerId").asString()).isEqualTo("model-b");
			assertThat(item.path("result").isNull()).isTrue();
		}
	}

	@Test
	void aStaleSessionsCheckpointAndFailureWriteNothing() {
		UUID itemId = itemIn("Reindex search", "stale-writes");
		try (ModelSession model = new ModelSession(this.port, workerToken("model-c2"))) {
			claimedThenRegranted(model, itemId, "stale-writes", "model-d");
			String before = fingerprint(itemId);

			assertThat(model.error("checkpoint", Map.of("data", Map.of("by", "the stale model"))))
				.contains("You no longer hold this item (lease_expired)");
			assertThat(model.error("fail_work", Map.of("error", Map.of("message", "stale"))))
				.contains("You no longer hold this item");
			assertThat(fingerprint(itemId)).isEqualTo(before);
			assertThat(this.jdbc.sql("select count(*) from checkpoints where item_id = :id")
				.param("id", itemId)
				.query(Long.class)
				.single()).isZero();
		}
	}

	@Test
	void aFailureEndsTheHoldAndCountsAnAttempt() {
		UUID itemId = itemIn("Call the flaky API", "flaky");
		try (ModelSession model = new ModelSession(this.port, workerToken("model-f"))) {
			model.ok("claim_work", Map.of("queues", List.of("flaky")));
			JsonNode failed = model.ok("fail_work", Map.of("error", Map.of("message", "503 from upstream")));
			assertThat(failed.path("failed").asBoolean()).isTrue();
			assertThat(failed.path("item").path("attempts").asInt()).isEqualTo(1);
			assertThat(model.error("complete_work", Map.of())).contains("You hold no item");
		}
		assertThat(this.jdbc.sql("select outcome from lease_history where item_id = :id")
			.param("id", itemId)
			.query(String.class)
			.list()).containsExactly("failed");
	}

	@Test
	void closingTheSessionGivesItsItemBack() {
		UUID itemId = itemIn("Write the notes", "closing");
		try (ModelSession model = new ModelSession(this.port, workerToken("model-c"))) {
			model.ok("claim_work", Map.of("queues", List.of("closing")));
		}
		assertThat(statusOf(itemId)).isEqualTo("ready");
		assertThat(this.jdbc.sql("select outcome || ': ' || reason from lease_history where item_id = :id")
			.param("id", itemId)
			.query(String.class)
			.single()).isEqualTo("released: " + McpSessions.SESSION_CLOSED);
	}

	@Test
	void onlyWorkersGetInAndASessionIsItsWorkersAlone() {
		Map<String, String> headers = Map.of("Content-Type", "application/json", "Accept",
				"application/json, text/event-stream");
		String initialize = """
				{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",
				"capabilities":{},"clientInfo":{"name":"test","version":"1"}}}""";
		byte[] body = initialize.getBytes(java.nio.charset.StandardCharsets.UTF_8);
		assertThat(this.api.raw("POST", "/mcp", body, headers).status()).isEqualTo(401);
		assertThat(operator().raw("POST", "/mcp", body, headers).code()).isEqualTo("forbidden");

		Api.Response opened = this.api.as(workerToken("owner")).raw("POST", "/mcp", body, headers);
		assertThat(opened.status()).as(opened.toString()).isEqualTo(200);
		String sessionId = opened.header("Mcp-Session-Id");
		assertThat(sessionId).isNotBlank();
		Map<String, String> inSession = new java.util.HashMap<>(headers);
		inSession.put("Mcp-Session-Id", sessionId);
		byte[] list = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"
			.getBytes(java.nio.charset.StandardCharsets.UTF_8);
		assertThat(this.api.as(workerToken("intruder")).raw("POST", "/mcp", list, inSession).status()).isEqualTo(404);
		assertThat(this.api.as(workerToken("intruder-2")).raw("DELETE", "/mcp", null, inSession).status())
			.isEqualTo(404);
	}

	/** Everything the database holds about the item, its leases and its questions. */
	/**
	 * The model claims the item; its lease then expires, is reaped, and the item is
	 * granted to {@code otherWorker}: the session's hold is stale.
	 */
	private void claimedThenRegranted(ModelSession model, UUID itemId, String queue, String otherWorker) {
		Api other = this.api.as(workerToken(otherWorker));
		model.ok("claim_work", Map.of("queues", List.of(queue)));
		UUID leaseId = this.jdbc.sql("select id from leases where item_id = :id")
			.param("id", itemId)
			.query(UUID.class)
			.single();
		expireLease(leaseId);
		Eventually.until("the reaped item is granted to another worker", Duration.ofSeconds(20), Duration.ofMillis(100),
				() -> other.post("/claims", Map.of("queues", List.of(queue))).status() == 201);
	}

	private String fingerprint(UUID itemId) {
		return this.jdbc.sql("""
				select concat_ws('|', (select i::text from work_items i where id = :id),
				  (select l::text from leases l where item_id = :id),
				  (select string_agg(h::text, ',' order by epoch) from lease_history h where item_id = :id),
				  (select count(*)::text from attention_requests where item_id = :id))""")
			.param("id", itemId)
			.query(String.class)
			.single();
	}

	private JsonNode read(UUID itemId) {
		Api.Response item = operator().get("/items/" + itemId);
		assertThat(item.status()).as(item.toString()).isEqualTo(200);
		return item.body();
	}

	private String statusOf(UUID itemId) {
		return read(itemId).path("status").asString();
	}

}
