package dev.workgraph.validation;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

import tools.jackson.databind.JsonNode;

/**
 * What the service accepts as text. PostgreSQL's text and jsonb types cannot store
 * U+0000, and an unpaired surrogate is not Unicode at all, so both are refused at the
 * edge (as 422) instead of surfacing as a database error. Lengths count Unicode code
 * points, sizes count UTF-8 bytes of compact JSON (docs/http-api.md, "Text and JSON
 * hygiene").
 */
public final class TextRules {

	private TextRules() {
	}

	/** Why the text cannot be stored, or {@code null} when it can. */
	public static String problemWith(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\u0000') {
				return "must not contain the NUL character (U+0000)";
			}
			if (Character.isHighSurrogate(c)) {
				if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
					i++;
					continue;
				}
				return "must not contain an unpaired surrogate";
			}
			if (Character.isLowSurrogate(c)) {
				return "must not contain an unpaired surrogate";
			}
		}
		return null;
	}

	public static int codePoints(String text) {
		return text.codePointCount(0, text.length());
	}

	/** Why some key or string inside the JSON value cannot be stored, or {@code null}. */
	public static String problemWithin(JsonNode node) {
		if (node.isString()) {
			return problemWith(node.asString());
		}
		if (node.isObject()) {
			Iterator<Map.Entry<String, JsonNode>> fields = node.properties().iterator();
			while (fields.hasNext()) {
				Map.Entry<String, JsonNode> field = fields.next();
				String problem = problemWith(field.getKey());
				if (problem == null) {
					problem = problemWithin(field.getValue());
				}
				if (problem != null) {
					return problem;
				}
			}
		}
		else if (node.isArray()) {
			for (JsonNode element : node) {
				String problem = problemWithin(element);
				if (problem != null) {
					return problem;
				}
			}
		}
		return null;
	}

	/** The value as compact JSON text, the form it is stored and measured in. */
	public static String compactJson(JsonNode node) {
		return node.toString();
	}

	public static int utf8Bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8).length;
	}

}
