package dev.workgraph.access;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A checksum of every table of the service's schema, found in the catalogue rather than
 * listed, so that a table another feature adds later is covered without anyone
 * remembering to add it. Only the tokens' {@code last_used_at} is left out: recording
 * when a token was last presented is bookkeeping the service may do on any request,
 * refused or not, and so are the instances' listener registrations (their listeners keep
 * them whatever requests do); everything else a refused request must leave exactly as it
 * was.
 */
final class EveryTable {

	/**
	 * The change outbox: the sequencer moves changes between these on its own schedule,
	 * and a change a refused request made would show in the table it is about.
	 */
	private static final List<String> OUTBOX = List.of("change_pending", "changes", "change_counter");

	/** Columns that may change on a refused request (see the class comment). */
	private static final List<String> BOOKKEEPING = List.of("last_used_at");

	private EveryTable() {
	}

	static Map<String, String> fingerprint(JdbcClient jdbc) {
		List<String> tables = jdbc.sql("""
				select table_name from information_schema.tables
				where table_schema = current_schema() and table_type = 'BASE TABLE'
				  and table_name not in ('flyway_schema_history', 'listener_sessions')
				order by table_name
				""").query(String.class).list();
		String dropped = String.join(" - ", BOOKKEEPING.stream().map((column) -> "'" + column + "'").toList());
		Map<String, String> fingerprint = new LinkedHashMap<>();
		for (String table : tables) {
			if (OUTBOX.contains(table)) {
				continue;
			}
			String row = "(to_jsonb(t) - " + dropped + ")::text";
			fingerprint.put(table, jdbc
				.sql("select count(*) || ':' || coalesce(md5(string_agg(" + row + ", '|' order by " + row
						+ ")), '') from \"" + table + "\" t")
				.query(String.class)
				.single());
		}
		return fingerprint;
	}

}
