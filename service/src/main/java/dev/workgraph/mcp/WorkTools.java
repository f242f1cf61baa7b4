package dev.workgraph.mcp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.mcp.McpSession.HeldLease;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.stereotype.Component;

/**
 * What each tool does: the HTTP call it stands for, made with the session's token and,
 * for the held item, the session's lease id and epoch. A call answered with a stale-lease
 * code makes the session let go of the lease; any refusal is a tool error, and nothing
 * was written.
 */
@Component
class WorkTools {

	/**
	 * The codes that mean the lease is no longer the caller's (docs/http-api.md,
	 * "Fencing").
	 */
	private static final Set<String> STALE = Set.of("lease_expired", "lease_ended", "epoch_mismatch");

	private final ServiceCalls calls;

	private final McpSessions sessions;

	private final McpProperties properties;

	private final ToolResults results;

	WorkTools(ServiceCalls calls, McpSessions sessions, McpProperties properties, JsonMapper json) {
		this.calls = calls;
		this.sessions = sessions;
		this.properties = properties;
		this.results = new ToolResults(json);
	}

	List<SyncToolSpecification> specifications() {
		List<SyncToolSpecification> specifications = new ArrayList<>();
		for (McpSchema.Tool tool : ToolCatalogue.tools()) {
			specifications.add(new SyncToolSpecification(tool,
					(exchange, request) -> call(exchange, tool.name(), arguments(request))));
		}
		return specifications;
	}

	private McpSchema.CallToolResult call(McpSyncServerExchange exchange, String tool, Map<String, Object> arguments) {
		McpSession session = this.sessions.find(exchange.sessionId()).orElse(null);
		if (session == null) {
			return ToolResults.error("This MCP session has ended: start a new one.");
		}
		session.tools().lock();
		try {
			return switch (tool) {
				case ToolCatalogue.CLAIM_WORK -> claim(session, arguments);
				case ToolCatalogue.GET_ITEM -> getItem(session, arguments);
				case ToolCatalogue.COMPLETE_WORK ->
					endLease(session, "/complete", only(arguments, "result"), "completed");
				case ToolCatalogue.RELEASE_WORK ->
					endLease(session, "/release", only(arguments, "reason", "retryAfterSeconds"), "released");
				case ToolCatalogue.FAIL_WORK ->
					endLease(session, "/fail", only(arguments, "error", "retryable", "reason"), "failed");
				case ToolCatalogue.CHECKPOINT -> checkpoint(session, arguments);
				case ToolCatalogue.ASK_HUMAN -> askHuman(session, arguments);
				case ToolCatalogue.DECOMPOSE -> decompose(session, arguments);
				case ToolCatalogue.CREATE_ITEM -> createItem(session, arguments);
				case ToolCatalogue.WAIT_FOR_EVENT -> waitForEvent(session, arguments);
				default -> ToolResults.error("No such tool: " + tool);
			};
		}
		catch (ServiceCalls.ServiceUnreachable ex) {
			return ToolResults.error("The service could not be reached; try the same call again shortly.");
		}
		finally {
			session.tools().unlock();
		}
	}

	private McpSchema.CallToolResult claim(McpSession session, Map<String, Object> arguments) {
		HeldLease held = session.held();
		if (held != null) {
			return ToolResults.error("You already hold item " + held.itemId()
					+ ": finish it with complete_work, give it back with release_work, or split it with decompose "
					+ "before you claim another.");
		}
		Map<String, Object> body = only(arguments, "queues", "waitSeconds");
		body.put("leaseSeconds", this.properties.leaseSeconds());
		if (!session.secured()) {
			body.put("workerId", session.workerId());
		}
		long wait = (arguments.get("waitSeconds") instanceof Number seconds) ? seconds.longValue() : 0;
		ServiceCalls.Answer answer = this.calls.post("/claims", body, session.authorization(),
				Duration.ofSeconds(Math.clamp(wait, 0, 60)));
		if (answer.status() == 204) {
			return this.results.ok(Map.of("claimed", false, "message",
					"Nothing is ready in those queues right now. Call claim_work again later, or with waitSeconds "
							+ "(up to 60) to wait for work."));
		}
		if (!answer.succeeded()) {
			return this.results.refused(answer);
		}
		JsonNode lease = answer.body().path("lease");
		session.hold(new HeldLease(UUID.fromString(lease.path("id").asString()), lease.path("epoch").asLong(),
				UUID.fromString(lease.path("itemId").asString()), System.nanoTime()));
		return this.results.ok(Map.of("claimed", true, "item", ToolResults.item(answer.body().path("item"))));
	}

	private McpSchema.CallToolResult getItem(McpSession session, Map<String, Object> arguments) {
		Object requested = arguments.get("itemId");
		UUID itemId;
		try {
			itemId = (requested != null) ? UUID.fromString(requested.toString()) : session.lastItemId();
		}
		catch (IllegalArgumentException ex) {
			return ToolResults.error("itemId must be an item's id (a UUID), such as the id claim_work answered.");
		}
		if (itemId == null) {
			return ToolResults.error("You have held no item in this session: pass itemId, or call claim_work.");
		}
		ServiceCalls.Answer answer = this.calls.get("/items/" + itemId, session.authorization());
		if (!answer.succeeded()) {
			return this.results.refused(answer);
		}
		HeldLease held = session.held();
		return this.results.ok(Map.of("holding", held != null && held.itemId().equals(itemId), "item",
				ToolResults.item(answer.body())));
	}

	/** Completes or releases the held item: either way the lease ends. */
	private McpSchema.CallToolResult endLease(McpSession session, String action, Map<String, Object> body,
			String outcome) {
		HeldLease held = session.held();
		ServiceCalls.Answer answer = underLease(session, held, action, body);
		if (answer == null || !answer.succeeded()) {
			return failure(session, held, answer);
		}
		session.drop(held);
		return this.results.ok(Map.of(outcome, true, "item", ToolResults.item(answer.body().path("item"))));
	}

	/** Saves progress under the held lease; the session keeps the item. */
	private McpSchema.CallToolResult checkpoint(McpSession session, Map<String, Object> arguments) {
		HeldLease held = session.held();
		ServiceCalls.Answer answer = underLease(session, held, "/checkpoints", only(arguments, "data"));
		if (answer == null || !answer.succeeded()) {
			return failure(session, held, answer);
		}
		return this.results.ok(Map.of("saved", true, "checkpoint",
				ToolResults.checkpoint(answer.body().path("checkpoint")), "holding", true));
	}

	private McpSchema.CallToolResult askHuman(McpSession session, Map<String, Object> arguments) {
		HeldLease held = session.held();
		ServiceCalls.Answer answer = underLease(session, held, "/attention-requests",
				only(arguments, "question", "context", "blocking"));
		if (answer == null || !answer.succeeded()) {
			return failure(session, held, answer);
		}
		boolean blocking = answer.body().path("blocking").asBoolean(true);
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("asked", true);
		result.put("attentionRequest", ToolResults.attentionRequest(answer.body()));
		result.put("holding", !blocking);
		if (blocking) {
			session.drop(held);
			result.put("message", "You no longer hold the item; it waits for the answer. Call get_item to see "
					+ "whether the question is answered, then claim_work to take the item back (it is offered to "
					+ "you first for a while).");
		}
		else {
			result.put("message", "The question is recorded; you still hold the item and may go on.");
		}
		return this.results.ok(result);
	}

	private McpSchema.CallToolResult decompose(McpSession session, Map<String, Object> arguments) {
		HeldLease held = session.held();
		ServiceCalls.Answer answer = underLease(session, held, "/decompose", only(arguments, "children", "reason"));
		if (answer == null || !answer.succeeded()) {
			return failure(session, held, answer);
		}
		session.drop(held);
		List<JsonNode> children = new ArrayList<>();
		answer.body().path("children").forEach((child) -> children.add(ToolResults.item(child)));
		return this.results
			.ok(Map.of("decomposed", true, "item", ToolResults.item(answer.body().path("item")), "children", children));
	}

	/** Parks the held item on an event: the lease ends {@code waiting}. */
	private McpSchema.CallToolResult waitForEvent(McpSession session, Map<String, Object> arguments) {
		HeldLease held = session.held();
		Map<String, Object> body = only(arguments, "timeoutSeconds", "onTimeout");
		body.put("event", only(arguments, "name", "key"));
		ServiceCalls.Answer answer = underLease(session, held, "/waits", body);
		if (answer == null || !answer.succeeded()) {
			return failure(session, held, answer);
		}
		session.drop(held);
		JsonNode wait = answer.body().path("wait");
		boolean matched = wait.path("status").asString("").equals("matched");
		return this.results.ok(Map.of("waiting", !matched, "wait", ToolResults.wait(wait), "item",
				ToolResults.item(answer.body().path("item")), "holding", false, "message",
				matched ? "The event had already arrived: the item is ready again. Call claim_work to take it "
						+ "back; the event's payload is in item.waits[].matchedEvent."
						: "You no longer hold the item; it waits for the event. Call get_item to see whether it "
								+ "came, then claim_work to take the item back."));
	}

	/** Files a separate item; what the session holds does not change. */
	private McpSchema.CallToolResult createItem(McpSession session, Map<String, Object> arguments) {
		ServiceCalls.Answer answer = this.calls.post("/items",
				only(arguments, "title", "description", "queue", "priority", "metadata", "dependsOn"),
				session.authorization());
		if (answer.status() == 403) {
			return ToolResults.error("You may not create this item: " + answer.body().path("detail").asString("")
					+ ". Nothing was created. An admin grants the right to create items when issuing a worker "
					+ "token (createItems). To split the item you hold, use decompose; to tell a human about the "
					+ "work, use ask_human.");
		}
		if (!answer.succeeded()) {
			return this.results.refused(answer);
		}
		return this.results
			.ok(Map.of("created", true, "item", ToolResults.item(answer.body()), "holding", session.held() != null));
	}

	/**
	 * The HTTP call on the held lease, with its epoch; null when the session holds none.
	 */
	private ServiceCalls.Answer underLease(McpSession session, HeldLease held, String action,
			Map<String, Object> body) {
		if (held == null) {
			return null;
		}
		body.put("epoch", held.epoch());
		return this.calls.post("/leases/" + held.leaseId() + action, body, session.authorization());
	}

	private McpSchema.CallToolResult failure(McpSession session, HeldLease held, ServiceCalls.Answer answer) {
		if (answer == null) {
			return ToolResults.nothingHeld(session);
		}
		if (answer.code() != null && STALE.contains(answer.code())) {
			session.lose(held, answer.code());
			return ToolResults.lost(answer.code());
		}
		return this.results.refused(answer);
	}

	/** The named arguments that were given, as a request body to add to. */
	private static Map<String, Object> only(Map<String, Object> arguments, String... names) {
		Map<String, Object> body = new LinkedHashMap<>();
		for (String name : names) {
			if (arguments.get(name) != null) {
				body.put(name, arguments.get(name));
			}
		}
		return body;
	}

	private static Map<String, Object> arguments(McpSchema.CallToolRequest request) {
		return (request.arguments() != null) ? request.arguments() : Map.of();
	}

}
