package dev.workgraph.lease;

import java.util.List;
import java.util.UUID;

import dev.workgraph.lease.claim.Claims;
import dev.workgraph.lease.ending.BatchFencing;
import dev.workgraph.testing.MigratedDatabase;
import dev.workgraph.testing.QueryPlans;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A claim or a completion reads the rows of its own item, however skewed the graph around
 * it. The graph here is one large fan-in and decomposition: {@value #FAN} items that are
 * all children of one parent and all depend on one gate, which has {@value #QUESTIONS}
 * attention requests. To the planner's statistics that means one distinct value in each
 * of those columns; a lookup by a value taken from another row is then priced at every
 * row, and the claim or completion of any other item scanned the whole of each table. The
 * database is the test's own, so that no other test's rows dilute the skew.
 */
class SkewedGraphPlanTests {

	private static final int FAN = 5_000;

	private static final int QUESTIONS = 2_000;

	private static final UUID LEASE = UUID.fromString("01900000-0000-7000-8000-000000000001");

	private static MigratedDatabase database;

	private static JdbcClient jdbc;

	@BeforeAll
	static void skewedGraph() {
		database = MigratedDatabase.create();
		jdbc = database.jdbc();
		jdbc.sql("""
				insert into work_items (id, title, status, open_attention_requests)
				values ('01900000-0000-7000-8000-00000000000a', 'gate', 'blocked', :questions)
				""").param("questions", QUESTIONS).update();
		jdbc.sql("""
				insert into attention_requests (id, item_id, lease_id, epoch, raised_by, blocking, question)
				select gen_random_uuid(), '01900000-0000-7000-8000-00000000000a', gen_random_uuid(), 0, 'system',
				    true, 'question ' || i
				from generate_series(1, :questions) i
				""").param("questions", QUESTIONS).update();
		jdbc.sql("""
				insert into work_items (id, title, status, open_children)
				values ('01900000-0000-7000-8000-00000000000b', 'parent', 'blocked', :fan)
				""").param("fan", FAN).update();
		jdbc.sql("""
				insert into work_items (id, title, status, parent_id, unmet_dependencies)
				select ('01900000-0000-7000-8001-' || lpad(to_hex(i), 12, '0'))::uuid, 'child ' || i, 'blocked',
				    '01900000-0000-7000-8000-00000000000b', 1
				from generate_series(1, :fan) i
				""").param("fan", FAN).update();
		jdbc.sql("""
				insert into dependencies (item_id, depends_on_id)
				select id, '01900000-0000-7000-8000-00000000000a' from work_items where title like 'child %'
				""").update();
		// The item completed below: a leaf that nothing waits for, under a current lease.
		jdbc.sql("""
				insert into work_items (id, title, status, epoch)
				values ('01900000-0000-7000-8000-00000000000c', 'leaf', 'leased', 1)
				""").update();
		jdbc.sql("""
				insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
				values (:lease, '01900000-0000-7000-8000-00000000000c', 'w', 1, now(), now() + interval '1 hour',
				    'default')
				""").param("lease", LEASE).update();
		// The item claimed below: ready, as a leaf.
		jdbc.sql("""
				with made as (
				    insert into work_items (id, title, status, ready_since)
				    values ('01900000-0000-7000-8000-00000000000d', 'ready leaf', 'ready', now())
				    returning id, queue, priority, ready_since
				)
				insert into ready_items (item_id, queue, priority, ready_since)
				select id, queue, priority, ready_since from made
				""").update();
		jdbc.sql("vacuum analyze work_items, dependencies, attention_requests").update();
	}

	@AfterAll
	static void dropDatabase() {
		if (database != null) {
			database.close();
		}
	}

	@Test
	void aCompletionReadsOnlyItsOwnItemsRows() {
		JsonNode plan = explainAndRollBack(Fencing.COMPLETE_IF_CURRENT.replace(":leaseId", "'" + LEASE + "'")
			.replace(":epoch", "1")
			.replace(":result", "'{}'"));

		assertReadsOnlyItsOwnRows(plan);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aGroupOfCompletionsReadsOnlyItsOwnItemsRows(boolean withItems) {
		String statement = withItems ? BatchFencing.COMPLETE_ALL_IF_CURRENT_WITH_ITEMS
				: BatchFencing.COMPLETE_ALL_IF_CURRENT;
		JsonNode plan = explainAndRollBack(statement.replace(":leaseIds", "'{" + LEASE + "}'")
			.replace(":epochs", "'{1}'")
			.replace(":results", "'{\"{}\"}'"));

		assertReadsOnlyItsOwnRows(plan);
	}

	@Test
	void aClaimReadsOnlyItsOwnItemsRows() {
		JsonNode plan = explainAndRollBack(Claims.CLAIM_NEXT_READY.replace(":leaseId", "gen_random_uuid()")
			.replace(":workerId", "'w'")
			.replace(":leaseSeconds", "60")
			.replace(":continuitySeconds", "600"));

		assertThat(plan.path("Actual Rows").asLong()).as("items claimed").isEqualTo(1);
		assertReadsOnlyItsOwnRows(plan);
	}

	private static void assertReadsOnlyItsOwnRows(JsonNode plan) {
		SoftAssertions.assertSoftly((softly) -> {
			for (String table : List.of("work_items", "dependencies", "attention_requests")) {
				softly.assertThat(QueryPlans.rowsRead(plan, table))
					.as("%s rows read for a leaf", table)
					.isLessThanOrEqualTo(10);
			}
		});
	}

	private static JsonNode explainAndRollBack(String statement) {
		return QueryPlans.explainAndRollBack(database.transactionManager(), jdbc, statement,
				"select set_config('plan_cache_mode', 'force_generic_plan', true)");
	}

}
