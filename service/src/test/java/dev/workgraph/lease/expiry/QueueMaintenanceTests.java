package dev.workgraph.lease.expiry;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue vacuum removes the dead rows a drained backlog leaves in {@code ready_items}
 * and keeps the table's pages: truncating them would take a lock that every claim waits
 * for.
 */
class QueueMaintenanceTests extends LeaseTestSupport {

	private static final int BACKLOG = 3_000;

	@Autowired
	private QueueMaintenance maintenance;

	@Test
	void neitherChurnedTableIsEverTruncatedByVacuum() {
		for (String table : List.of("ready_items", "leases")) {
			assertThat(this.jdbc.sql("select reloptions from pg_class where oid = :table::regclass")
				.param("table", table)
				.query(String.class)
				.single()).as("options of %s", table).contains("vacuum_truncate=false");
		}
	}

	@Test
	void aDrainedBacklogIsVacuumedAwayWithoutGivingBackItsPages() {
		readyItems(BACKLOG);
		long pages = pages();
		assertThat(pages).isPositive();
		// The whole backlog drained: every page of the table is empty, so a truncating
		// vacuum would cut them all off.
		this.jdbc.sql("""
				with drained as (delete from ready_items returning item_id)
				update work_items w set status = 'cancelled', ready_since = null, closed_at = now()
				from drained d where w.id = d.item_id;
				do $$ begin perform pg_stat_force_next_flush(); end $$
				""").update();
		waitFor(() -> deadRows() >= BACKLOG, "the dead rows counted");

		this.maintenance.vacuumChurnedTables();

		// The scheduled vacuum may have come first: either way the rows are gone.
		waitFor(() -> deadRows() == 0, "the dead rows vacuumed away");
		assertThat(pages()).as("pages of ready_items after the vacuum").isEqualTo(pages);
	}

	private long pages() {
		return this.jdbc.sql("select pg_relation_size('ready_items') / current_setting('block_size')::int")
			.query(Long.class)
			.single();
	}

	private long deadRows() {
		return this.jdbc.sql("select n_dead_tup from pg_stat_user_tables where relid = 'ready_items'::regclass")
			.query(Long.class)
			.single();
	}

	private static void waitFor(BooleanSupplier condition, String what) {
		Eventually.until(what, Duration.ofSeconds(15), Duration.ofMillis(50), condition);
	}

}
