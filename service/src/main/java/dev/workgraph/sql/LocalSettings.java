package dev.workgraph.sql;

import java.util.StringJoiner;

/**
 * Settings for the rest of the current transaction, made by one statement. A
 * transaction's first statement on the hot paths sets the planner up for the statements
 * after it; {@code set_config(name, value, true)} lasts until the end of the transaction
 * as {@code SET LOCAL} does, and one query sets them all, where each {@code SET LOCAL} is
 * a statement of its own for the server to parse and run. Unlike {@code SET LOCAL} it
 * does not warn (in the server's log, at every call) outside an explicit transaction
 * block, so it can also go ahead of a query in the same round trip
 * ({@link OneRoundTrip}), the two being one implicit transaction. Either way the pooled
 * connection is left as it was. The repository that needs them runs the query itself,
 * first in its transaction, as it runs its other SQL.
 */
public final class LocalSettings {

	private LocalSettings() {
	}

	/**
	 * The query that sets each name to the value after it.
	 * @param namesAndValues name, value, name, value…: constants of the service's own,
	 * never input (they are written into the statement)
	 */
	public static String query(String... namesAndValues) {
		return "select " + calls(namesAndValues);
	}

	/**
	 * The {@code set_config} calls alone, comma-separated, for a query that selects
	 * something else beside them.
	 * @param namesAndValues as for {@link #query}
	 */
	public static String calls(String... namesAndValues) {
		if (namesAndValues.length == 0 || namesAndValues.length % 2 != 0) {
			throw new IllegalArgumentException("names and values in pairs: " + String.join(", ", namesAndValues));
		}
		StringJoiner calls = new StringJoiner(", ");
		for (int i = 0; i < namesAndValues.length; i += 2) {
			calls.add("set_config('" + namesAndValues[i] + "', '" + namesAndValues[i + 1] + "', true)");
		}
		return calls.toString();
	}

}
