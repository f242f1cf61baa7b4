package dev.workgraph.lease.expiry;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Keeps the claim path fast under sustained load. Every claim deletes the row at the head
 * of {@code ready_items}' index and every lease end deletes a {@code leases} row (and the
 * change sequencer every {@code change_pending} row); the dead index entries stay exactly
 * where the next claim (and the reaper) start scanning until VACUUM removes them, and
 * autovacuum's one-minute naptime is far too slow for a queue. Both tables hold only live
 * work, so vacuuming them every couple of seconds costs milliseconds regardless of how
 * many items exist.
 */
@Repository
class QueueMaintenance {

	private static final Logger log = LoggerFactory.getLogger(QueueMaintenance.class);

	/** Vacuum a table once it has at least this many dead rows. */
	private static final int DEAD_ROWS_THRESHOLD = 500;

	/** The tables vacuumed here; names are only ever taken from this list. */
	static final List<String> QUEUE_TABLES = List.of("ready_items", "leases", "change_pending");

	static final String CHURNED_QUEUE_TABLES = """
			select relname from pg_stat_user_tables
			where relname in ('ready_items', 'leases', 'change_pending') and schemaname = current_schema()
			    and n_dead_tup >= :threshold
			""";

	private final JdbcClient jdbc;

	QueueMaintenance(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	void vacuumChurnedTables() {
		try {
			List<String> churned = this.jdbc.sql(CHURNED_QUEUE_TABLES)
				.param("threshold", DEAD_ROWS_THRESHOLD)
				.query(String.class)
				.list();
			for (String table : churned) {
				// Outside any transaction (VACUUM cannot run in one); SKIP_LOCKED so two
				// instances never queue; PARALLEL 0: with a backlog the indexes are large
				// enough for PostgreSQL to start worker processes for them, every time,
				// for a vacuum of a few milliseconds. The table itself is never truncated
				// (V12).
				String known = QUEUE_TABLES.get(QUEUE_TABLES.indexOf(table));
				this.jdbc.sql("vacuum (skip_locked, parallel 0) " + known).update();
			}
		}
		catch (RuntimeException ex) {
			log.warn("Queue vacuum failed, retrying next interval: {}", ex.getMessage());
		}
	}

}
