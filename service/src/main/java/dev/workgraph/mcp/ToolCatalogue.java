package dev.workgraph.mcp;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * The tools as a model sees them: names, descriptions and argument schemas. Descriptions
 * say what a tool does, when to use it, and what its errors mean, because a model reads
 * nothing else before it calls. The schemas check types only; every rule beyond that is
 * the HTTP API's, answered as a tool error in its words.
 */
final class ToolCatalogue {

	static final String CLAIM_WORK = "claim_work";

	static final String GET_ITEM = "get_item";

	static final String COMPLETE_WORK = "complete_work";

	static final String RELEASE_WORK = "release_work";

	static final String ASK_HUMAN = "ask_human";

	static final String DECOMPOSE = "decompose";

	static final String CHECKPOINT = "checkpoint";

	static final String FAIL_WORK = "fail_work";

	static final String CREATE_ITEM = "create_item";

	static final String WAIT_FOR_EVENT = "wait_for_event";

	/** What every tool that acts on the held item says about losing it. */
	private static final String LOST = " If you no longer hold the item (your hold expired or it was taken back), "
			+ "the call fails with an error saying so and changes nothing: stop working on that item, "
			+ "do not retry, and call claim_work for other work.";

	private ToolCatalogue() {
	}

	static List<McpSchema.Tool> tools() {
		return List.of(claimWork(), getItem(), checkpoint(), completeWork(), releaseWork(), failWork(), askHuman(),
				decompose(), waitForEvent(), createItem());
	}

	private static McpSchema.Tool claimWork() {
		return tool(CLAIM_WORK, "Claim the next work item",
				"Take the best ready work item and hold it: while this session lasts, nobody else may work on it, "
						+ "and the hold is renewed for you. Use it when you are ready for work and hold nothing. "
						+ "The answer is the item (title, description, metadata, answers to earlier questions, "
						+ "children's results); when nothing is ready it says so: call again later, or pass "
						+ "waitSeconds to wait for work. You can hold one item at a time: finish it with "
						+ "complete_work, give it back with release_work, or split it with decompose first.",
				properties(Map.of("queues",
						Map.of("type", "array", "items", Map.of("type", "string"), "description",
								"Queues to take work from (all queues when left out)."),
						"waitSeconds",
						Map.of("type", "integer", "minimum", 0, "maximum", 60, "description",
								"How long to wait for an item to become ready when none is (0–60, default 0)."))),
				List.of(), false);
	}

	private static McpSchema.Tool getItem() {
		return tool(GET_ITEM, "Read a work item",
				"Read a work item as it is now: its status, the questions asked about it with their answers "
						+ "(attentionRequests[].resolution), its children and their results. Without itemId it "
						+ "reads the item you hold, or the one you held last: use it to see whether a human has "
						+ "answered your question yet. You may read only items you hold or held.",
				properties(Map.of("itemId", Map.of("type", "string", "format", "uuid", "description",
						"The item's id (default: the item you hold or held last)."))),
				List.of(), true);
	}

	private static McpSchema.Tool completeWork() {
		return tool(COMPLETE_WORK, "Complete the item you hold",
				"Mark the item you hold as done, with its result, and let go of it. Items that wait for it become "
						+ "ready. Use it once the work is really finished. It is refused, and you keep the item, "
						+ "while the item has unfinished children or unmet dependencies." + LOST,
				properties(Map.of("result",
						Map.of("description",
								"The outcome, any JSON value up to 64 KiB (for example {\"summary\": \"…\"})."))),
				List.of(), false);
	}

	private static McpSchema.Tool checkpoint() {
		return tool(CHECKPOINT, "Save your progress on the item you hold",
				"Save what you have done so far on the item you hold, as a JSON object, and keep working. If "
						+ "you lose the item (your session ends, your hold expires), whoever takes it next finds "
						+ "your latest checkpoint in the item's checkpoint field and resumes from there instead "
						+ "of starting over; when you claim an item, look at its checkpoint first. Use it after "
						+ "each step that would be costly to repeat." + LOST,
				properties(Map.of("data", Map.of("type", "object", "description",
						"Your progress, as a JSON object of at most 1 MiB (for example {\"done\": [\"step 1\"], "
								+ "\"next\": \"step 2\"})."))),
				List.of("data"), false);
	}

	private static McpSchema.Tool failWork() {
		return tool(FAIL_WORK, "Report that the item you hold failed",
				"Let go of the item you hold because the work failed, saying what went wrong. The item counts one "
						+ "more attempt and is tried again later, after a pause, while it has attempts left; with "
						+ "retryable false (the failure would only repeat, such as bad input) or when its attempts "
						+ "are used up, it waits for a human instead. Use release_work when nothing failed and "
						+ "you only cannot do the work now." + LOST,
				properties(Map.of("error",
						Map.of("type", "object", "description",
								"What went wrong, as a JSON object of at most 64 KiB (for example "
										+ "{\"message\": \"the build fails\", \"log\": \"…\"})."),
						"retryable",
						Map.of("type", "boolean", "description", "Whether trying again could succeed (default true)."),
						"reason", Map.of("type", "string", "description", "Why (at most 2,000 characters)."))),
				List.of("error"), false);
	}

	private static McpSchema.Tool releaseWork() {
		return tool(RELEASE_WORK, "Give the item back",
				"Let go of the item you hold without finishing it, so that another worker (or you, later) can "
						+ "take it. Use it when you cannot do the work, or should not do it now; say why. When it "
						+ "cannot be done before some time has passed (a rate limit, something not there yet), "
						+ "give retryAfterSeconds: nobody takes it before then." + LOST,
				properties(Map.of("reason",
						Map.of("type", "string", "description", "Why you give it back (at most 2,000 characters)."),
						"retryAfterSeconds",
						Map.of("type", "integer", "minimum", 0, "maximum", 2_592_000, "description",
								"Seconds before anyone may take the item again (0–2,592,000; none: at once)."))),
				List.of(), false);
	}

	private static McpSchema.Tool askHuman() {
		return tool(ASK_HUMAN, "Ask a human a question about the item you hold",
				"Ask the people who steer the work a question about the item you hold. Blocking (the default) "
						+ "means you cannot go on without the answer: you let go of the item, which waits until "
						+ "the question is answered. Then check with get_item (the answer is in "
						+ "attentionRequests[].resolution) and take the item back with claim_work: it is offered "
						+ "to you first for a while. With blocking false the question is only recorded and you "
						+ "keep working on the item." + LOST,
				properties(Map.of("question", Map.of("type", "string", "description",
						"The question, self-contained: the human sees it with the item's title (1–20,000 characters)."),
						"context",
						Map.of("type", "object", "description",
								"Facts that help to answer, as a JSON object (at most 64 KiB)."),
						"blocking",
						Map.of("type", "boolean", "description",
								"Whether you must stop until it is answered (default true)."))),
				List.of("question"), false);
	}

	private static McpSchema.Tool decompose() {
		Map<String, Object> child = properties(Map.of("key",
				Map.of("type", "string", "description", "A name for this child, unique in this call."), "title",
				Map.of("type", "string"), "description", Map.of("type", "string"), "priority",
				Map.of("type", "integer"), "queue", Map.of("type", "string"), "metadata", Map.of("type", "object"),
				"dependsOn", Map.of("type", "array", "items", Map.of("type", "string"), "description",
						"Keys of sibling children (or ids of existing items) that must be completed first.")));
		child.put("required", List.of("key", "title"));
		return tool(DECOMPOSE, "Split the item you hold into smaller items",
				"Create child items under the item you hold and let go of it. It waits until every child is "
						+ "finished, and whoever claims it next finds each child's result in its children. Use "
						+ "it when the work is too big for one go or parts must happen in order." + LOST,
				properties(Map.of("children",
						Map.of("type", "array", "minItems", 1, "items", child, "description",
								"The children to create (1–1,000)."),
						"reason", Map.of("type", "string", "description", "Why (at most 2,000 characters)."))),
				List.of("children"), false);
	}

	private static McpSchema.Tool waitForEvent() {
		return tool(WAIT_FOR_EVENT, "Wait for an event before going on with the item you hold",
				"Park the item you hold until something outside happens — CI finishes, a deploy ends, a "
						+ "person replies elsewhere — identified by an event name and a key that the sending "
						+ "system uses (for example name ci.finished, key the commit you pushed). You let go of "
						+ "the item; it waits, costing nothing, and becomes ready again when the event arrives "
						+ "(or at once, if it arrived shortly before) or when timeoutSeconds pass. Then call "
						+ "claim_work to take it back (it is offered to you first for a while) and read the "
						+ "event's payload in item.waits[].matchedEvent; get_item shows whether it came yet." + LOST,
				properties(Map.of("name",
						Map.of("type", "string", "description",
								"The kind of event, as the sending system names it (1–200 characters)."),
						"key",
						Map.of("type", "string", "description",
								"Exactly which one: a commit, a pull request and its head, a deploy id "
										+ "(1–500 characters)."),
						"timeoutSeconds",
						Map.of("type", "integer", "minimum", 1, "maximum", 31_536_000, "description",
								"Give up waiting after this many seconds (default: wait without a deadline)."),
						"onTimeout",
						Map.of("type", "string", "enum", List.of("ready", "cancel", "ask"), "description",
								"At the deadline: ready (the item runs again without the event, the default), "
										+ "cancel it, or ask a human."))),
				List.of("name", "key"), false);
	}

	private static McpSchema.Tool createItem() {
		return tool(CREATE_ITEM, "Create a new work item",
				"File a new, separate work item for later: follow-up work you noticed that does not belong to the "
						+ "item you hold (to split the item you hold into parts, use decompose instead). It does not "
						+ "change what you hold; anyone may claim the new item once it is ready. Only allowed when "
						+ "your token was issued with the right to create items; otherwise the call is refused and "
						+ "nothing is created.",
				properties(Map
					.of("title", Map.of("type", "string", "description", "What is to be done (1–500 characters)."),
							"description",
							Map.of("type", "string", "description",
									"Everything a worker needs to do it, self-contained."),
							"queue",
							Map.of("type", "string", "description",
									"The queue to put it in (default \"default\"; a token limited to some queues "
											+ "must name one of them)."),
							"priority",
							Map.of("type", "integer", "minimum", -1000, "maximum", 1000, "description",
									"Higher is taken first (default 0)."),
							"metadata", Map.of("type", "object", "description", "Structured facts about it."),
							"dependsOn",
							Map.of("type", "array", "items", Map.of("type", "string", "format", "uuid"), "description",
									"Ids of items that must be completed before it may start."))),
				List.of("title"), false);
	}

	private static Map<String, Object> properties(Map<String, Object> properties) {
		Map<String, Object> schema = new LinkedHashMap<>();
		schema.put("type", "object");
		schema.put("properties", new java.util.TreeMap<>(properties));
		return schema;
	}

	private static McpSchema.Tool tool(String name, String title, String description, Map<String, Object> schema,
			List<String> required, boolean readOnly) {
		if (!required.isEmpty()) {
			schema.put("required", required);
		}
		return McpSchema.Tool.builder(name, schema)
			.title(title)
			.description(description)
			.annotations(new McpSchema.ToolAnnotations(title, readOnly, false, readOnly, false, null))
			.build();
	}

}
