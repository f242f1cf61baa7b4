package dev.workgraph.validation;

import tools.jackson.databind.JsonNode;

/** Helpers for JSON values that arrive in requests and are stored as jsonb. */
public final class Json {

	private Json() {
	}

	/**
	 * Compact JSON text for a jsonb parameter, or {@code null} when the value is absent
	 * or JSON null.
	 */
	public static String textOrNull(JsonNode node) {
		return (node == null || node.isNull()) ? null : TextRules.compactJson(node);
	}

	/**
	 * Compact JSON text for a jsonb parameter, {@code {}} when the value is absent or
	 * JSON null.
	 */
	public static String objectText(JsonNode node) {
		String text = textOrNull(node);
		return (text != null) ? text : "{}";
	}

}
