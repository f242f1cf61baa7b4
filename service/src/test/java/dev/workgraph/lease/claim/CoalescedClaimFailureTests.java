package dev.workgraph.lease.claim;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import dev.workgraph.WorkGraphApplication;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A coalesced claim batch that fails answers each of its claims with the problem a lone
 * claim would get, and nobody hangs. A second instance whose statements time out after
 * 500 ms (57014, cancelled by PostgreSQL: 503) claims while {@code leases} is locked
 * against granting.
 */
class CoalescedClaimFailureTests extends LeaseTestSupport {

	private static ConfigurableApplicationContext impatient;

	@BeforeAll
	static void startImpatientInstance() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		impatient = new SpringApplicationBuilder(WorkGraphApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=" + database.username(),
				"--spring.datasource.password=" + database.password(), "--spring.datasource.hikari.pool-name=impatient",
				"--spring.datasource.hikari.connection-init-sql=set statement_timeout = '500ms'",
				"--workgraph.lease.reaper-enabled=false", "--workgraph.lease.vacuum-interval=0s",
				"--workgraph.security.enabled=false");
	}

	@AfterAll
	static void stopImpatientInstance() {
		if (impatient != null) {
			impatient.close();
		}
	}

	@Test
	void everyClaimOfAFailingBatchGetsA503AndTheNextClaimsWorkAgain() throws Exception {
		for (int i = 0; i < 5; i++) {
			createItem("item " + i);
		}
		Api api = new Api(((WebServerApplicationContext) impatient).getWebServer().getPort());
		List<Api.Response> answers = answersWhileLocked("leases", 24,
				(i) -> api.post("/claims", Map.of("workerId", "worker-" + i)));
		assertThat(answers).allSatisfy((answer) -> assertProblem(answer, 503, "service_unavailable"));
		assertThat(count("select count(*) from leases")).isZero();
		assertThat(count("select count(*) from ready_items")).isEqualTo(5);
		List<Api.Response> after = Concurrently.run(8, (i) -> api.post("/claims", Map.of("workerId", "w" + i)));
		assertThat(after.stream().filter((answer) -> answer.status() == 201)).hasSize(5);
		assertThat(after.stream().filter((answer) -> answer.status() == 204)).hasSize(3);
	}

	/**
	 * Group commit (docs/adr/0009): completions committed together whose transaction
	 * fails because the database does not answer each get the 503 a lone completion
	 * would, nothing of any of them is written, and a stale one among them still gets
	 * nothing but its 503 or its own 409; afterwards they complete.
	 */
	@Test
	void everyCompletionOfAFailingBatchGetsA503AndNothingIsWritten() throws Exception {
		for (int i = 0; i < 16; i++) {
			createItem("item " + i);
		}
		List<tools.jackson.databind.JsonNode> claims = new ArrayList<>();
		for (int i = 0; i < 16; i++) {
			claims.add(claim("worker-" + i));
		}
		Api api = new Api(((WebServerApplicationContext) impatient).getWebServer().getPort());
		List<Api.Response> answers = answersWhileLocked("lease_history", claims.size(),
				(i) -> api.post("/leases/" + leaseId(claims.get(i)) + "/complete",
						Map.of("epoch", epoch(claims.get(i)), "result", Map.of("ok", true))));
		assertThat(answers).allSatisfy((answer) -> assertProblem(answer, 503, "service_unavailable"));
		assertThat(count("select count(*) from lease_history")).isZero();
		assertThat(count("select count(*) from leases")).isEqualTo(16);
		List<Api.Response> after = Concurrently.run(16,
				(i) -> api.post("/leases/" + leaseId(claims.get(i)) + "/complete",
						Map.of("epoch", epoch(claims.get(i)) + ((i == 3) ? 1 : 0))));
		for (int i = 0; i < 16; i++) {
			if (i == 3) {
				assertProblem(after.get(i), 409, "epoch_mismatch");
			}
			else {
				assertOk(after.get(i));
			}
		}
		assertThat(count("select count(*) from work_items where status = 'completed'")).isEqualTo(15);
	}

	/**
	 * Sends {@code count} requests at once while another session holds {@code table} in
	 * share mode (so every write waits behind it until the impatient instance's statement
	 * timeout), and answers them in order once all are in; then the lock is let go.
	 */
	private static List<Api.Response> answersWhileLocked(String table, int count, IntFunction<Api.Response> request)
			throws Exception {
		ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
		try (Connection holder = DriverManager.getConnection(TestDatabase.coordinates().jdbcUrl(),
				TestDatabase.coordinates().username(), TestDatabase.coordinates().password())) {
			holder.setAutoCommit(false);
			try (Statement statement = holder.createStatement()) {
				statement.execute("lock table " + table + " in share mode");
			}
			List<Future<Api.Response>> sent = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				int index = i;
				sent.add(threads.submit(() -> request.apply(index)));
			}
			List<Api.Response> answers = new ArrayList<>();
			for (Future<Api.Response> answer : sent) {
				answers.add(answer.get(30, TimeUnit.SECONDS));
			}
			holder.rollback();
			return answers;
		}
		finally {
			threads.shutdownNow();
		}
	}

}
