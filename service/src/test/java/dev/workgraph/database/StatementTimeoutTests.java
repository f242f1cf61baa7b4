package dev.workgraph.database;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.FreshDatabase;
import dev.workgraph.testing.ServiceInstance;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A statement that runs past the query timeout is cancelled in PostgreSQL, not merely
 * abandoned by the service: the request is answered 503 well before the driver's socket
 * timeout, the statement no longer runs or waits in the database, nothing of the request
 * is written, and the same request succeeds once the cause is gone. Here the statement
 * waits for a row lock held from outside the service; the query timeout is one second.
 */
class StatementTimeoutTests {

	private static final String WAITING_SERVICE_STATEMENTS = """
			select count(*) from pg_stat_activity
			where datname = current_database() and application_name = 'work-graph'
			    and state = 'active' and wait_event_type = 'Lock'""";

	@Test
	void aStatementPastTheQueryTimeoutIsCancelledAndTheRequestAnswered503() throws SQLException {
		try (FreshDatabase database = FreshDatabase.create();
				ServiceInstance service = ServiceInstance.start("statement-timeout", database,
						"--spring.jdbc.template.query-timeout=1s", "--workgraph.security.enabled=false");
				Connection outside = DriverManager.getConnection(database.jdbcUrl(), database.username(),
						database.password())) {
			Api api = service.api();
			Api.Response item = api.post("/items", Map.of("title", "locked from outside", "queue", "timeouts"));
			assertThat(item.status()).as(item.toString()).isEqualTo(201);
			Api.Response claim = api.post("/claims", Map.of("workerId", "patient", "queues", List.of("timeouts")));
			assertThat(claim.status()).as(claim.toString()).isEqualTo(201);
			String lease = claim.body().path("lease").path("id").asString();
			long epoch = claim.body().path("lease").path("epoch").asLong();
			Map<String, Object> completion = Map.of("epoch", epoch, "result", Map.of("done", true));

			outside.setAutoCommit(false);
			try (PreparedStatement lock = outside
				.prepareStatement("select 1 from work_items where id = ? for update")) {
				lock.setObject(1, UUID.fromString(item.body().path("id").asString()));
				lock.executeQuery().close();
			}
			long started = System.nanoTime();
			Api.Response cancelled = api.post("/leases/" + lease + "/complete", completion);
			Duration answeredAfter = Duration.ofNanos(System.nanoTime() - started);

			assertThat(cancelled.status()).as(cancelled.toString()).isEqualTo(503);
			assertThat(cancelled.body().path("code").asString()).isEqualTo("service_unavailable");
			assertThat(cancelled.body().path("detail").asString()).contains("cancelled");
			assertThat(cancelled.raw().headers().firstValue("Retry-After")).hasValue("1");
			// The query timeout, not the socket timeout (30 s), ended the wait.
			assertThat(answeredAfter).isBetween(Duration.ofMillis(900), Duration.ofSeconds(10));
			// Still inside the outside transaction: nothing of the service waits for its
			// lock.
			try (PreparedStatement waiting = outside.prepareStatement(WAITING_SERVICE_STATEMENTS);
					ResultSet count = waiting.executeQuery()) {
				count.next();
				assertThat(count.getInt(1)).isZero();
			}
			outside.rollback();

			Api.Response leased = api.get("/items/" + item.body().path("id").asString());
			assertThat(leased.body().path("status").asString()).isEqualTo("leased");
			assertThat(leased.body().path("epoch").asLong()).isEqualTo(epoch);
			Api.Response completed = api.post("/leases/" + lease + "/complete", completion);
			assertThat(completed.status()).as(completed.toString()).isEqualTo(200);
			assertThat(completed.body().path("item").path("status").asString()).isEqualTo("completed");
		}
	}

}
