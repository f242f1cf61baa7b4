package dev.workgraph.lease.claim;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.workgraph.testing.MigratedDatabase;
import dev.workgraph.testing.OneLargeQueue;
import dev.workgraph.testing.QueryPlans;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A claim limited to some queues reads the ready entries of those queues only, however
 * many items another queue holds ({@link OneLargeQueue}: {@value #BACKLOG} ready items in
 * one queue, two in another, so the statistics know one queue name). Under the generic
 * plan the service runs, which cannot see which queue a claim asks for, a lookup by queue
 * name was priced as passing every row: claims from the small queue, and the check
 * whether it had anything ready that every waiting claim makes, walked the whole backlog
 * in claim order (300 ms a claim at 340,000 ready). The database is the test's own, so
 * that no other test's rows dilute the skew.
 */
class QueueFilterPlanTests {

	private static final int BACKLOG = 100_000;

	private static MigratedDatabase database;

	private static JdbcClient jdbc;

	@BeforeAll
	static void oneQueueWithABacklog() {
		database = MigratedDatabase.create();
		jdbc = database.jdbc();
		OneLargeQueue.make(jdbc, BACKLOG);
	}

	@AfterAll
	static void dropDatabase() {
		if (database != null) {
			database.close();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { OneLargeQueue.SMALL, "empty", OneLargeQueue.LARGE })
	void aClaimInQueuesReadsOnlyThoseQueuesEntries(String queue) {
		Map<String, String> arguments = new LinkedHashMap<>();
		arguments.put("leaseId", "gen_random_uuid()::uuid");
		arguments.put("workerId", "'w'::text");
		arguments.put("leaseSeconds", "60::int");
		arguments.put("continuitySeconds", "600::float8");
		arguments.put("queues", queues(queue));
		assertReadsAFewEntries(Claims.CLAIM_NEXT_READY_IN_QUEUES, arguments);
	}

	@ParameterizedTest
	@ValueSource(strings = { OneLargeQueue.SMALL, "empty", OneLargeQueue.LARGE })
	void coalescedClaimsInQueuesLockOnlyThoseQueuesEntries(String queue) {
		Map<String, String> arguments = new LinkedHashMap<>();
		arguments.put("queues", queues(queue));
		arguments.put("n", "4::int");
		arguments.put("workerIds", "'{w1,w2,w3,w4}'::text[]");
		arguments.put("continuitySeconds", "600::float8");
		assertReadsAFewEntries(Claims.LOCK_CLAIM_CANDIDATES_IN_QUEUES, arguments);
	}

	@ParameterizedTest
	@ValueSource(strings = { OneLargeQueue.SMALL, "empty", OneLargeQueue.LARGE })
	void whetherAQueueHasAnythingReadyReadsOnlyItsEntries(String queue) {
		assertReadsAFewEntries(Claims.ANY_READY_IN_QUEUES, Map.of("queues", queues(queue)));
	}

	private static String queues(String queue) {
		return "'{" + queue + "}'::text[]";
	}

	private static void assertReadsAFewEntries(String statement, Map<String, String> arguments) {
		JsonNode plan = QueryPlans.explainGenericAndRollBack(database.transactionManager(), jdbc, statement, arguments);
		assertThat(QueryPlans.rowsRead(plan, "ready_items")).as("ready entries read").isLessThanOrEqualTo(10);
	}

}
