package dev.workgraph.lease.claim;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A claim that waits longer than {@code workgraph.coalescing.max-wait} for a batch hears
 * that the service is overloaded (503 with Retry-After), not that the database is
 * unavailable, and is never served afterwards. One batch at a time here, and the batch in
 * flight is stuck behind a table lock, so the next claim can only queue.
 */
@TestPropertySource(properties = { "workgraph.coalescing.max-in-flight=1", "workgraph.coalescing.max-wait=500ms" })
class ClaimQueueTimeoutTests extends LeaseTestSupport {

	@Test
	void aClaimQueuedPastMaxWaitIsToldTheServiceIsOverloadedAndIsNeverServed() throws Exception {
		createItem("first");
		createItem("second");
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
		try (Connection holder = DriverManager.getConnection(database.jdbcUrl(), database.username(),
				database.password())) {
			holder.setAutoCommit(false);
			try (Statement statement = holder.createStatement()) {
				statement.execute("lock table ready_items in access exclusive mode");
			}
			Future<Api.Response> inFlight = threads.submit(() -> this.api.post("/claims", Map.of("workerId", "w1")));
			awaitAStatementWaitingForALock();

			long started = System.nanoTime();
			Api.Response queued = this.api.post("/claims", Map.of("workerId", "w2"));
			Duration waited = Duration.ofNanos(System.nanoTime() - started);

			assertProblem(queued, 503, "service_unavailable");
			assertThat(queued.body().path("detail").asString()).contains("overloaded");
			assertThat(queued.header("Retry-After")).isEqualTo("1");
			assertThat(waited).isBetween(Duration.ofMillis(400), Duration.ofSeconds(10));
			assertThat(inFlight.isDone()).as("the batch in flight is still waiting for the lock").isFalse();

			holder.rollback();
			assertCreated(inFlight.get(30, TimeUnit.SECONDS));
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(count("select count(*) from leases")).as("only the claim in flight was served").isEqualTo(1);
		assertThat(count("select count(*) from ready_items")).isEqualTo(1);
	}

	private void awaitAStatementWaitingForALock() throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (count("select count(*) from pg_locks where not granted and relation = 'ready_items'::regclass") == 0) {
			assertThat(System.nanoTime()).as("the claim reached the database").isLessThan(deadline);
			Thread.sleep(10);
		}
	}

}
