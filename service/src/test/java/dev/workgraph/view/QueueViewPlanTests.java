package dev.workgraph.view;

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
 * {@code GET /queues/{name}} of a small queue reads that queue's entries, not those of a
 * large one beside it ({@link OneLargeQueue}), under the generic plan the service runs.
 */
class QueueViewPlanTests {

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
	@ValueSource(strings = { OneLargeQueue.SMALL, "empty" })
	void aSmallQueueIsCountedFromItsOwnEntries(String queue) {
		JsonNode plan = QueryPlans.explainGenericAndRollBack(database.transactionManager(), jdbc,
				QueueViews.QUEUE_BY_NAME, Map.of("name", "'" + queue + "'::text"));
		assertThat(QueryPlans.rowsRead(plan, "ready_items")).as("ready entries read").isLessThanOrEqualTo(10);
	}

}
