package dev.workgraph.access;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.workgraph.item.ReadyWaiters;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.ServiceInstance;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long-poll claim waits with a token that was checked when the request came in: a
 * revocation must end it, on every instance, with nothing granted, however much work
 * becomes ready after the revocation; and a waiting claim that never heard of the
 * revocation must still grant nothing.
 */
class WaitingClaimRevocationTests extends HostileTest {

	private static final String BATCH = "{\"limit\":500,\"waitSeconds\":30,\"leaseSeconds\":86400,\"queues\":[\"%s\"]}";

	private static ServiceInstance second;

	@Autowired
	private ReadyWaiters waiters;

	@BeforeAll
	static void startSecondInstance() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		second = ServiceInstance.start("second-waiting-instance", database.jdbcUrl(), database.username(),
				database.password(), "--workgraph.security.bootstrap-admin-token=" + ADMIN_TOKEN);
	}

	@AfterAll
	static void stopSecondInstance() {
		if (second != null) {
			second.close();
		}
	}

	@Test
	void aWaitingBatchClaimOnTheOtherInstanceEndsEmptyWhenItsTokenIsRevoked() throws Exception {
		Issued worker = issue("waiting-worker", "worker", "waiting-worker");
		CompletableFuture<Api.Response> waiting = CompletableFuture
			.supplyAsync(() -> as(second.api(), worker).post("/claims/batch", BATCH.formatted("revoked-batch")));
		awaitWaiting(second.bean(ReadyWaiters.class));
		long start = System.nanoTime();
		revoke(worker);
		createItems("revoked-batch", 3);
		Api.Response answer = waiting.get(20, TimeUnit.SECONDS);
		assertThat(answer.status()).as(answer.toString()).isEqualTo(204);
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ended by the revocation, not its wait")
			.isLessThan(10_000L);
		assertNothingLeasedTo("waiting-worker");
	}

	@Test
	void aWaitingSingleClaimOnTheRevokingInstanceEndsEmpty() throws Exception {
		Issued worker = issue("waiting-single", "worker", "waiting-single");
		CompletableFuture<Api.Response> waiting = CompletableFuture.supplyAsync(
				() -> as(this.api, worker).post("/claims", "{\"waitSeconds\":30,\"queues\":[\"revoked-single\"]}"));
		awaitWaiting(this.waiters);
		revoke(worker);
		Api.Response answer = waiting.get(10, TimeUnit.SECONDS);
		assertThat(answer.status()).as(answer.toString()).isEqualTo(204);
		createItems("revoked-single", 1);
		assertNothingLeasedTo("waiting-single");
	}

	@Test
	void aWaitingClaimThatNeverHeardOfTheRevocationChecksItsTokenBeforeGranting() throws Exception {
		Issued worker = issue("unheard-worker", "worker", "unheard-worker");
		CompletableFuture<Api.Response> waiting = CompletableFuture
			.supplyAsync(() -> as(second.api(), worker).post("/claims/batch", BATCH.formatted("unheard")));
		awaitWaiting(second.bean(ReadyWaiters.class));
		// Revoked without a word to any instance: the trigger that announces it is off in
		// a session that acts as a replication apply.
		this.jdbc.sql("""
				with off as (select set_config('session_replication_role', 'replica', true))
				update access_tokens set revoked_at = now() where id = cast(:id as uuid)
				    and (select count(*) from off) = 1
				""").param("id", worker.id()).update();
		createItems("unheard", 3);
		Api.Response answer = waiting.get(20, TimeUnit.SECONDS);
		assertThat(answer.status()).as(answer.toString()).isEqualTo(204);
		assertNothingLeasedTo("unheard-worker");
	}

	private static void awaitWaiting(ReadyWaiters waiters) {
		Eventually.until("the claim waits", Duration.ofSeconds(10), Duration.ofMillis(10),
				() -> waiters.waiting() == 1);
	}

	private void createItems(String queue, int count) {
		for (int i = 0; i < count; i++) {
			Api.Response created = bootstrapAdmin().post("/items",
					Map.of("title", "after the revocation", "queue", queue));
			assertThat(created.status()).as(created.toString()).isEqualTo(201);
		}
	}

	private void assertNothingLeasedTo(String workerId) {
		Integer leases = this.jdbc.sql("select count(*) from leases where worker_id = :worker")
			.param("worker", workerId)
			.query(Integer.class)
			.single();
		assertThat(leases).as("leases granted to the revoked worker").isZero();
	}

}
