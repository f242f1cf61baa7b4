package dev.workgraph.mcp;

import java.util.Map;

import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a tool answers: JSON for the model, with the lease's id and epoch taken out of
 * everything the service answered (the session keeps them; a model that saw them might
 * try to use them), and errors worded for a model.
 */
final class ToolResults {

	private final JsonMapper json;

	ToolResults(JsonMapper json) {
		this.json = json;
	}

	McpSchema.CallToolResult ok(Map<String, ?> answer) {
		return McpSchema.CallToolResult.builder().addTextContent(this.json.writeValueAsString(answer)).build();
	}

	static McpSchema.CallToolResult error(String message) {
		return McpSchema.CallToolResult.builder().addTextContent(message).isError(true).build();
	}

	/** The service refused the call for a reason of its own; nothing was written. */
	McpSchema.CallToolResult refused(ServiceCalls.Answer answer) {
		String code = answer.code();
		if (answer.status() == 401 || answer.status() == 403) {
			return error("The service refused this session's token (" + code + "): "
					+ answer.body().path("detail").asString("") + " Ask whoever runs you for a valid worker token.");
		}
		StringBuilder message = new StringBuilder("The service refused this call (")
			.append((code != null) ? code : "HTTP " + answer.status())
			.append("): ")
			.append(answer.body().path("detail").asString(""));
		JsonNode errors = answer.body().path("errors");
		if (errors.isArray() && !errors.isEmpty()) {
			message.append(" Problems: ").append(this.json.writeValueAsString(errors)).append('.');
		}
		message.append(" Nothing was written.");
		if (answer.status() >= 500) {
			message.append(" This is temporary: try the same call again shortly.");
		}
		return error(message.toString());
	}

	/** The session's lease is gone: the stale-lease code, in a model's terms. */
	static McpSchema.CallToolResult lost(String code) {
		String why = switch (code) {
			case "lease_expired" -> "your hold on it expired, and it may already belong to another worker";
			case "lease_ended" -> "your hold on it had already ended";
			case "epoch_mismatch" -> "it has been claimed again since you took it";
			default -> "the service no longer lets you act on it";
		};
		return error("You no longer hold this item (" + code + "): " + why + ". Nothing was written. Stop working "
				+ "on it and do not retry: another worker may do it. Call claim_work for other work.");
	}

	static McpSchema.CallToolResult nothingHeld(McpSession session) {
		if (session.lostCode() != null) {
			return lost(session.lostCode());
		}
		return error("You hold no item: call claim_work first.");
	}

	/**
	 * An item view without the lease that holds it and without epochs: the model acts on
	 * "the item it holds", never on a lease.
	 */
	static JsonNode item(JsonNode view) {
		if (!(view instanceof ObjectNode object)) {
			return view;
		}
		ObjectNode item = object.deepCopy();
		item.remove("epoch");
		item.remove("lease");
		checkpoint(item.path("checkpoint"));
		for (JsonNode request : item.path("attentionRequests")) {
			attentionRequest(request);
		}
		for (JsonNode wait : item.path("waits")) {
			wait(wait);
		}
		return item;
	}

	/**
	 * A checkpoint without the lease it was written under, which the model never handles.
	 */
	static JsonNode checkpoint(JsonNode checkpoint) {
		if (checkpoint instanceof ObjectNode object) {
			object.remove("leaseId");
			object.remove("epoch");
		}
		return checkpoint;
	}

	/** A wait, without the lease it ended. */
	static JsonNode wait(JsonNode wait) {
		if (wait instanceof ObjectNode object) {
			object.remove("leaseId");
			object.remove("epoch");
		}
		return wait;
	}

	static JsonNode attentionRequest(JsonNode request) {
		if (request instanceof ObjectNode object) {
			object.remove("leaseId");
			object.remove("epoch");
		}
		return request;
	}

}
