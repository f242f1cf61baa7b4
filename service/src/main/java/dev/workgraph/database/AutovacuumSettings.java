package dev.workgraph.database;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Whether autovacuum may analyze the items: the server's settings and the items table's
 * own, as {@link AutovacuumCheck} reads them at start-up.
 */
@Repository
class AutovacuumSettings {

	/** Autovacuum needs all three. */
	static final String SETTINGS = """
			select current_setting('autovacuum')::boolean as server,
			    current_setting('track_counts')::boolean as track_counts,
			    coalesce((select o.option_value::boolean
			              from pg_class c, pg_options_to_table(c.reloptions) o
			              where c.oid = 'work_items'::regclass and o.option_name = 'autovacuum_enabled'),
			             true) as work_items
			""";

	private final JdbcClient jdbc;

	AutovacuumSettings(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	Autovacuum read() {
		return this.jdbc.sql(SETTINGS)
			.query((rs, row) -> new Autovacuum(rs.getBoolean("server"), rs.getBoolean("track_counts"),
					rs.getBoolean("work_items")))
			.single();
	}

	/** Whether autovacuum runs at all, counts changes, and may run on the items. */
	record Autovacuum(boolean server, boolean trackCounts, boolean workItems) {

		/** What to tell the operator, when any of the three stops it. */
		Optional<String> warning() {
			List<String> off = new ArrayList<>();
			if (!this.server) {
				off.add("autovacuum = off");
			}
			if (!this.trackCounts) {
				off.add("track_counts = off");
			}
			if (!this.workItems) {
				off.add("autovacuum_enabled = false on work_items");
			}
			if (off.isEmpty()) {
				return Optional.empty();
			}
			return Optional.of("PostgreSQL will not analyze the items' tables as they grow (" + String.join(", ", off)
					+ "): pooled connections keep plans made for their earlier sizes, and on a table that was "
					+ "small they read all of it. Turn autovacuum on, or run ANALYZE after loading many items "
					+ "(docs/operations.md, PostgreSQL settings).");
		}

	}

}
