package dev.workgraph.view;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;

/**
 * Writes a JSON value that PostgreSQL gave as {@code jsonb} text, compact like the rest
 * of the response. {@code jsonb}'s text form puts a space after every colon and comma
 * ({@code {"branch": "release/1.4"}}); whitespace outside strings carries no meaning, so
 * it is dropped in one pass over the text, without parsing it into a tree.
 */
public final class JsonbText extends ValueSerializer<String> {

	@Override
	public void serialize(String json, JsonGenerator generator, SerializationContext context) {
		generator.writeRawValue(compact(json));
	}

	/** The same JSON without whitespace between tokens; text inside strings is kept. */
	static String compact(String json) {
		StringBuilder compact = null;
		boolean inString = false;
		for (int i = 0; i < json.length(); i++) {
			char c = json.charAt(i);
			if (inString) {
				if (c == '\\') {
					i++;
					if (compact != null && i < json.length()) {
						compact.append(c).append(json.charAt(i));
					}
					continue;
				}
				inString = c != '"';
			}
			else if (c == '"') {
				inString = true;
			}
			else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
				if (compact == null) {
					compact = new StringBuilder(json.length()).append(json, 0, i);
				}
				continue;
			}
			if (compact != null) {
				compact.append(c);
			}
		}
		return (compact != null) ? compact.toString() : json;
	}

}
