package dev.workgraph.sql;

import java.util.Collection;
import java.util.UUID;

/**
 * PostgreSQL array literals for binding a whole set as one parameter
 * ({@code :ids::uuid[]}): one statement handles any number of rows, and the SQL text
 * (hence its prepared plan) never changes.
 */
public final class SqlArrays {

	private SqlArrays() {
	}

	/**
	 * The array parameter {@code :name} as {@code type[]}, behind a scalar subquery, for
	 * statements run often with short arrays. Given the parameter itself, PostgreSQL
	 * counts its elements when it plans an execution with the value (a custom plan) but
	 * prices a cached generic plan for a hundred rows of {@code unnest} or ten of
	 * {@code = any}, so for a handful of ids every custom plan looked cheaper and every
	 * execution was planned again: more server CPU than running it. Behind the subquery
	 * neither plan can count, both are priced alike, and the generic plan is kept. (The
	 * cast after it makes it an array expression: {@code = any((select ...))} alone would
	 * compare with each row of the subquery.)
	 */
	public static String opaque(String name, String type) {
		return "(select :" + name + "::" + type + "[])::" + type + "[]";
	}

	public static String uuids(Collection<UUID> ids) {
		StringBuilder literal = new StringBuilder(ids.size() * 37 + 2).append('{');
		for (UUID id : ids) {
			if (literal.length() > 1) {
				literal.append(',');
			}
			literal.append(id);
		}
		return literal.append('}').toString();
	}

	public static String ints(int[] values) {
		StringBuilder literal = new StringBuilder(values.length * 3 + 2).append('{');
		for (int i = 0; i < values.length; i++) {
			literal.append((i > 0) ? "," : "").append(values[i]);
		}
		return literal.append('}').toString();
	}

	public static String longs(long[] values) {
		StringBuilder literal = new StringBuilder(values.length * 3 + 2).append('{');
		for (int i = 0; i < values.length; i++) {
			literal.append((i > 0) ? "," : "").append(values[i]);
		}
		return literal.append('}').toString();
	}

	/** A text array; {@code null} elements become SQL NULLs. */
	public static String texts(Collection<String> values) {
		StringBuilder literal = new StringBuilder().append('{');
		for (String value : values) {
			if (literal.length() > 1) {
				literal.append(',');
			}
			if (value == null) {
				literal.append("NULL");
				continue;
			}
			literal.append('"').append(value.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
		}
		return literal.append('}').toString();
	}

}
