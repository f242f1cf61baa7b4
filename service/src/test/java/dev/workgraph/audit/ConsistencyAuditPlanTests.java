package dev.workgraph.audit;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import dev.workgraph.testing.MigratedDatabase;
import dev.workgraph.testing.QueryPlans;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A chunk of the audit reads the items of its chunk and the items they depend on, not the
 * items between. The graph is the one that made chunks slow at ten million items: a gate
 * that {@value #CHUNK} items depend on, and {@value #COMPLETED} completed items whose ids
 * lie between the gate and them. Counting unmet dependencies by joining every dependency
 * to its target with a merge or hash join reads those completed items, which the filter
 * then drops (9.5 million rows for one chunk there, seconds per chunk). Which join the
 * planner picks depends on its estimates at each size, so the chunk is explained under
 * each join method the planner could prefer, and as the generic plan the service's
 * prepared statement runs after a few chunks: none may read the items in between. Nor may
 * a chunk read the other items' rows in the tables that say where an item lives (parked,
 * queued, leased): with millions of cancelled items, a hash join that read all of
 * {@code parked_items} took seconds per chunk, and one chunk outlasted the driver's
 * socket timeout. Nor may a chunk read any table's rows once per item of the chunk, as
 * nested loops did for chunks the planner took for a single item.
 */
class ConsistencyAuditPlanTests {

	private static final int CHUNK = 2_000;

	private static final int COMPLETED = 50_000;

	private static final int CANCELLED = 50_000;

	private static final int READY = 20_000;

	private static final int LEASED = 5_000;

	private static final String GATE = "01900000-0000-7000-8000-000000000001";

	private static final String CHUNK_AFTER = "01900000-0000-7000-8002-000000000000";

	private static final String CHUNK_UP_TO = "01900000-0000-7000-8002-ffffffffffff";

	/**
	 * A chunk of {@value #CHUNK} items completed, each with its completed lease, after
	 * the other completed items and before the waiting ones (inside the table's range of
	 * ids, so inside its histogram).
	 */
	private static final String COMPLETED_CHUNK_AFTER = "01900000-0000-7000-8001-800000000000";

	private static final String COMPLETED_CHUNK_UP_TO = "01900000-0000-7000-8001-8fffffffffff";

	private static MigratedDatabase database;

	private static JdbcClient jdbc;

	@BeforeAll
	static void gateBehindManyCompletedItems() {
		database = MigratedDatabase.create();
		jdbc = database.jdbc();
		jdbc.sql("insert into work_items (id, title, status, ready_since) values ('" + GATE
				+ "', 'gate', 'ready', now())")
			.update();
		jdbc.sql("insert into ready_items (item_id, queue, priority, ready_since) "
				+ "select id, queue, priority, ready_since from work_items")
			.update();
		completedWithTheirLeases("01900000-0000-7000-8001-", COMPLETED);
		jdbc.sql("""
				insert into work_items (id, title, status, unmet_dependencies)
				select ('01900000-0000-7000-8002-' || lpad(to_hex(i), 12, '0'))::uuid, 'waiting ' || i, 'blocked', 1
				from generate_series(1, :chunk) i
				""").param("chunk", CHUNK).update();
		jdbc.sql("insert into dependencies (item_id, depends_on_id) select id, '" + GATE
				+ "' from work_items where status = 'blocked'")
			.update();
		parkedQueuedAndLeasedBeyondTheChunk();
		completedWithTheirLeases("01900000-0000-7000-8001-8", CHUNK);
		jdbc.sql("vacuum analyze").update();
	}

	/**
	 * Items after the chunk's ids with a row each in parked_items, ready_items or leases.
	 */
	private static void parkedQueuedAndLeasedBeyondTheChunk() {
		jdbc.sql(
				"""
						insert into work_items (id, title, status, closed_at)
						select ('01900000-0000-7000-8003-' || lpad(to_hex(i), 12, '0'))::uuid, 'cancelled ' || i, 'cancelled', now()
						from generate_series(1, :cancelled) i
						""")
			.param("cancelled", CANCELLED)
			.update();
		jdbc.sql("""
				insert into work_items (id, title, status, ready_since)
				select ('01900000-0000-7000-8004-' || lpad(to_hex(i), 12, '0'))::uuid, 'ready ' || i, 'ready', now()
				from generate_series(1, :ready) i
				""").param("ready", READY).update();
		jdbc.sql("""
				insert into ready_items (item_id, queue, priority, ready_since)
				select id, queue, priority, ready_since from work_items where title like 'ready %'
				""").update();
		jdbc.sql("""
				insert into work_items (id, title, status, epoch)
				select ('01900000-0000-7000-8005-' || lpad(to_hex(i), 12, '0'))::uuid, 'leased ' || i, 'leased', 1
				from generate_series(1, :leased) i
				""").param("leased", LEASED).update();
		jdbc.sql("""
				insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
				select gen_random_uuid(), id, 'w', 1, now(), now() + interval '1 hour', queue
				from work_items where status = 'leased'
				""").update();
	}

	/**
	 * Completed items, each with its completed lease in history, their ids the prefix
	 * followed by a hexadecimal count.
	 */
	private static void completedWithTheirLeases(String idPrefix, int count) {
		jdbc.sql(
				"""
						with completed as (
						    insert into work_items (id, title, status, epoch, closed_at)
						    select (:prefix || lpad(to_hex(i), 36 - length(:prefix), '0'))::uuid, 'done ' || i, 'completed', 1, now()
						    from generate_series(1, :count) i
						    returning id
						)
						insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, expires_at, ended_at, outcome)
						select gen_random_uuid(), id, 'w', 1, now(), now() + interval '1 hour', now(), 'completed'
						from completed
						""")
			.param("prefix", idPrefix)
			.param("count", count)
			.update();
	}

	@AfterAll
	static void dropDatabase() {
		if (database != null) {
			database.close();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "default", "enable_nestloop", "enable_hashjoin", "enable_mergejoin" })
	void aChunkReadsItsItemsAndTheirTargetsOnly(String disabled) {
		String[] settings = disabled.equals("default") ? new String[0]
				: new String[] { "select set_config('" + disabled + "', 'off', true)" };
		JsonNode plan = QueryPlans.explainAndRollBack(database.transactionManager(), jdbc,
				chunkStatement(CHUNK_AFTER, CHUNK_UP_TO), settings);

		assertChunkOnly(plan, disabled + " off");
	}

	@ParameterizedTest
	@ValueSource(strings = { "default", "enable_nestloop", "enable_hashjoin", "enable_mergejoin" })
	void theGenericPlanOfAChunkReadsItsItemsAndTheirTargetsOnly(String disabled) throws SQLException {
		List<String> settings = disabled.equals("default") ? List.of() : List.of("set " + disabled + " = off");
		JsonNode plan = genericPlan(settings);

		assertChunkOnly(plan, "generic, " + disabled + " off");
	}

	@ParameterizedTest
	@ValueSource(ints = { 100, 2_000, 100_000 })
	void theChunkIsConsistent(int chunkSize) {
		ConsistencyAudit.Report report = new ConsistencyAudit(new JdbcTemplate(database.dataSource()), chunkSize,
				chunkSize)
			.run();

		assertThat(report.inconsistencies()).as("the fixture's graph").isEmpty();
		assertThat(report.itemsChecked()).isEqualTo(1 + COMPLETED + CHUNK + CANCELLED + READY + LEASED + CHUNK);
	}

	/**
	 * The planner estimates a range of uuids that lies inside one bucket of the column's
	 * histogram at one row: it cannot interpolate between uuids. With the statistics of
	 * {@code work_items.id} down to a single bucket every chunk lies inside one, and each
	 * chunk must still read each table's rows once, not once per item: the statement that
	 * joined per-item counts to the items read a chunk's completed leases again for every
	 * item (67 million index entries for a chunk of 12,500 items in the benchmark).
	 */
	@ParameterizedTest
	@ValueSource(strings = { "default", "enable_hashjoin", "enable_mergejoin", "enable_hashjoin,enable_mergejoin" })
	void aChunkTakenForOneItemReadsEachTableOnce(String disabled) {
		for (String[] chunk : List.of(new String[] { CHUNK_AFTER, CHUNK_UP_TO },
				new String[] { COMPLETED_CHUNK_AFTER, COMPLETED_CHUNK_UP_TO })) {
			JsonNode plan = explainedInsideOneBucket(chunk[0], chunk[1], disabled);

			assertChunkOnly(plan, "inside one histogram bucket, " + disabled + " off");
		}
	}

	/**
	 * The chunk's own items, once each for the recount and at most once per dependency
	 * for its target: what the chunk holds, whatever surrounds it.
	 */
	private static void assertChunkOnly(JsonNode plan, String how) {
		assertThat(QueryPlans.rowsRead(plan, "work_items")).as("item rows read by a chunk of %d items (%s)", CHUNK, how)
			.isLessThanOrEqualTo(2L * CHUNK + 10);
		for (String table : List.of("parked_items", "ready_items", "leases", "dependencies", "lease_history")) {
			assertThat(QueryPlans.rowsRead(plan, table))
				.as("%s rows read by a chunk of %d items (%s)", table, CHUNK, how)
				.isLessThanOrEqualTo(CHUNK + 10);
		}
	}

	/** The audit's chunk statement with its bounds written in. */
	private static String chunkStatement(String after, String upTo) {
		return ConsistencyAudit.INCONSISTENT_ITEMS.replace(":after", "'" + after + "'::uuid")
			.replace(":upTo", "'" + upTo + "'::uuid")
			.replace(":limit", "100");
	}

	/**
	 * The chunk explained after {@code work_items.id} was analyzed into one histogram
	 * bucket, in a transaction rolled back afterwards (ANALYZE is transactional).
	 */
	private static JsonNode explainedInsideOneBucket(String after, String upTo, String disabled) {
		return QueryPlans.explainAndRollBack(database.transactionManager(), jdbc, chunkStatement(after, upTo), () -> {
			jdbc.sql("alter table work_items alter column id set statistics 1").update();
			jdbc.sql("analyze work_items").update();
			if (!disabled.equals("default")) {
				for (String setting : disabled.split(",")) {
					jdbc.sql("set local " + setting + " = off").update();
				}
			}
			String estimated = jdbc
				.sql("explain (format json) select id from work_items where id > '" + after + "' and id <= '" + upTo
						+ "'")
				.query(String.class)
				.single();
			assertThat(QueryPlans.planOf(estimated).path("Plan Rows").asLong())
				.as("the planner's estimate of the chunk's items")
				.isEqualTo(1);
		});
	}

	/** The service's prepared statement, explained as its generic plan. */
	private static JsonNode genericPlan(List<String> settings) throws SQLException {
		String statement = ConsistencyAudit.INCONSISTENT_ITEMS.replace(":after", "$1")
			.replace(":upTo", "$2")
			.replace(":limit", "$3");
		try (Connection connection = database.dataSource().getConnection();
				Statement sql = connection.createStatement()) {
			sql.execute("begin");
			try {
				for (String setting : settings) {
					sql.execute(setting);
				}
				sql.execute("set local plan_cache_mode = force_generic_plan");
				sql.execute("prepare chunk (uuid, uuid, int) as " + statement);
				try (ResultSet explained = sql.executeQuery("explain (analyze, format json) execute chunk ('"
						+ CHUNK_AFTER + "', '" + CHUNK_UP_TO + "', 100)")) {
					explained.next();
					return QueryPlans.planOf(explained.getString(1));
				}
			}
			finally {
				sql.execute("rollback");
				sql.execute("deallocate all");
			}
		}
	}

}
