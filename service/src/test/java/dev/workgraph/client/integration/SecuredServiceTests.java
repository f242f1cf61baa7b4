package dev.workgraph.client.integration;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.workgraph.WorkGraphApplication;
import dev.workgraph.client.Claim;
import dev.workgraph.client.ClaimRequest;
import dev.workgraph.client.IssuedToken;
import dev.workgraph.client.Item;
import dev.workgraph.client.ItemStatus;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.NewItem;
import dev.workgraph.client.NewToken;
import dev.workgraph.client.Token;
import dev.workgraph.client.TokenRole;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.problem.Forbidden;
import dev.workgraph.client.problem.Unauthenticated;
import dev.workgraph.client.worker.LeaseLost;
import dev.workgraph.client.worker.TokenRefused;
import dev.workgraph.client.worker.Worker;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The client against a service with access control on: tokens issued, listed and revoked
 * by an admin; a worker token that names its worker; 401 and 403 as their own exceptions;
 * a worker runtime that sends its token with every request, and stops when the service
 * refuses it.
 */
class SecuredServiceTests {

	private static final String ADMIN_TOKEN = "client-tests-bootstrap-admin-" + UUID.randomUUID();

	private static ConfigurableApplicationContext service;

	private static String base;

	@BeforeAll
	static void startSecuredService() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		service = new SpringApplicationBuilder(WorkGraphApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=" + database.username(),
				"--spring.datasource.password=" + database.password(),
				"--spring.datasource.hikari.pool-name=secured-instance", "--workgraph.lease.reaper-enabled=false",
				"--workgraph.lease.vacuum-interval=0s", "--workgraph.security.enabled=true",
				"--workgraph.security.bootstrap-admin-token=" + ADMIN_TOKEN);
		base = "http://127.0.0.1:" + ((WebServerApplicationContext) service).getWebServer().getPort();
	}

	@AfterAll
	static void stopSecuredService() {
		if (service != null) {
			service.close();
		}
	}

	private static WorkGraphClient as(String token) {
		return WorkGraphClient.builder(base).token(token).build();
	}

	@Test
	void tokensAreIssuedListedAndRevokedAndEachRoleKeepsToItsRights() {
		WorkGraphClient admin = as(ADMIN_TOKEN);
		IssuedToken workerToken = admin.createToken(NewToken.worker("agent", "agent-" + UUID.randomUUID()));
		IssuedToken operatorToken = admin.createToken(NewToken.operator("ops"));
		assertThat(workerToken.role()).isEqualTo(TokenRole.WORKER);
		assertThat(admin.listTokens()).extracting(Token::id).contains(workerToken.id(), operatorToken.id());
		WorkGraphClient agent = as(workerToken.token());
		WorkGraphClient operator = as(operatorToken.token());

		Item item = operator.createItem(NewItem.titled("for the agent").withQueue("secured-" + UUID.randomUUID()));
		assertThatExceptionOfType(Forbidden.class)
			.isThrownBy(() -> operator.claim(ClaimRequest.forWorker("ops").withQueues(item.queue())));
		assertThatExceptionOfType(Forbidden.class)
			.isThrownBy(() -> agent.claim(ClaimRequest.forWorker("someone-else").withQueues(item.queue())));
		// The body may leave the worker out: the token names it.
		Claim claim = agent.claim(new ClaimRequest(null, java.util.List.of(item.queue()), null, null)).orElseThrow();
		assertThat(claim.lease().workerId()).isEqualTo(workerToken.workerId());
		agent.complete(claim.lease(), Map.of("by", "agent"));
		assertThat(operator.getItem(item.id()).createdBy()).isEqualTo("ops");

		assertThatExceptionOfType(Unauthenticated.class).isThrownBy(() -> as(null).getItem(item.id()));
		assertThatExceptionOfType(Unauthenticated.class).isThrownBy(() -> as("not-a-token").getItem(item.id()));
		assertThatExceptionOfType(Forbidden.class).isThrownBy(() -> operator.listTokens());
		admin.revokeToken(workerToken.id());
		assertThatExceptionOfType(Unauthenticated.class).isThrownBy(() -> agent.getLease(claim.lease().id()));
	}

	/**
	 * A worker token for a new worker id, and an item for it in a queue of its own.
	 */
	private static WorkerAndItem workerAndItem(String name, String title) {
		WorkGraphClient admin = as(ADMIN_TOKEN);
		String workerId = name + "-" + UUID.randomUUID();
		IssuedToken token = admin.createToken(NewToken.worker(name, workerId));
		Item item = admin.createItem(NewItem.titled(title).withQueue("secured-" + UUID.randomUUID()));
		return new WorkerAndItem(workerId, token, item);
	}

	private record WorkerAndItem(String workerId, IssuedToken token, Item item) {
	}

	@Test
	void aWorkerWithAWorkerTokenNeedsNoWorkerId() throws Exception {
		WorkGraphClient admin = as(ADMIN_TOKEN);
		WorkerAndItem fixture = workerAndItem("runtime", "done with a token");
		String workerId = fixture.workerId();
		Item item = fixture.item();
		Worker worker = Worker.builder(as(fixture.token().token()))
			.queues(item.queue())
			.leaseSeconds(3)
			.handler((lease) -> {
				Thread.sleep(2_500); // a renewal or two, with the token
				return Map.of("by", lease.workerId());
			})
			.build()
			.start();
		try {
			Item done = Items.awaitStatus(admin, item.id(), ItemStatus.COMPLETED, Duration.ofSeconds(30));
			assertThat(done.result().path("by").asString()).isEqualTo(workerId);
			assertThat(admin.leasesOfItem(item.id())).singleElement()
				.satisfies((lease) -> assertThat(lease.outcome()).isEqualTo(LeaseOutcome.COMPLETED));
		}
		finally {
			worker.stop(Duration.ofSeconds(5));
		}
	}

	@Test
	void aWorkerWithAnOperatorTokenStopsAtItsFirstClaimAndSaysHowToFixIt() {
		WorkGraphClient admin = as(ADMIN_TOKEN);
		IssuedToken operatorToken = admin.createToken(NewToken.operator("ops-" + UUID.randomUUID()));
		String queue = "secured-" + UUID.randomUUID();
		Item item = admin.createItem(NewItem.titled("not for an operator").withQueue(queue));
		Worker worker = Worker.builder(as(operatorToken.token()))
			.workerId("summariser-1")
			.queues(queue)
			.waitSeconds(1)
			.handler((lease) -> null)
			.build();
		assertThatExceptionOfType(TokenRefused.class)
			.isThrownBy(() -> assertTimeoutPreemptively(Duration.ofSeconds(20), worker::run))
			.satisfies((refused) -> {
				assertThat(refused.refusal()).isInstanceOf(Forbidden.class);
				assertThat(refused.getMessage())
					.startsWith("Worker summariser-1 cannot go on: the service refused its token "
							+ "(403 forbidden: GET /worker-stream needs a worker token; this token's role is operator).")
					.contains("\"role\":\"worker\",\"workerId\":\"summariser-1\"");
			});
		assertThat(worker.isRunning()).isFalse();
		assertThat(admin.getItem(item.id()).status()).isEqualTo(ItemStatus.READY);
	}

	@Test
	void aWorkerStartedWithARevokedTokenStops() {
		WorkGraphClient admin = as(ADMIN_TOKEN);
		String workerId = "revoked-" + UUID.randomUUID();
		IssuedToken token = admin.createToken(NewToken.worker("revoked", workerId));
		admin.revokeToken(token.id());
		Worker worker = Worker.builder(as(token.token()))
			.workerId(workerId)
			.queues("secured-" + UUID.randomUUID())
			.waitSeconds(1)
			.handler((lease) -> null)
			.build()
			.start();
		try {
			assertThat(worker.whenStopped()).failsWithin(Duration.ofSeconds(20))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOfSatisfying(TokenRefused.class,
						(refused) -> assertThat(refused.refusal()).isInstanceOf(Unauthenticated.class));
			assertThat(worker.isRunning()).isFalse();
		}
		finally {
			worker.stop(Duration.ofSeconds(5));
		}
	}

	@Test
	void aWorkerWhoseTokenIsRevokedMidWorkLosesItsLeaseSendsNothingMoreAndStops() throws Exception {
		WorkGraphClient admin = as(ADMIN_TOKEN);
		WorkerAndItem fixture = workerAndItem("revoked", "cut short");
		Item item = fixture.item();
		StubbornHandler handler = new StubbornHandler();
		Worker worker = Worker.builder(as(fixture.token().token()))
			.workerId(fixture.workerId())
			.queues(item.queue())
			.leaseSeconds(3) // renewed every second
			.waitSeconds(1)
			.handler(handler)
			.build()
			.start();
		try {
			assertThat(handler.working.await(20, TimeUnit.SECONDS)).as("working").isTrue();
			admin.revokeToken(fixture.token().id());
			assertThat(worker.whenStopped()).failsWithin(Duration.ofSeconds(20))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(TokenRefused.class);
			assertThat(handler.interrupted.await(5, TimeUnit.SECONDS)).as("handler interrupted").isTrue();
			assertThat(handler.lost.get().reason()).isEqualTo(LeaseLost.Reason.REFUSED);
			assertThat(handler.lost.get().getCause()).isInstanceOf(Unauthenticated.class);
			assertThat(handler.refusedLocally.get()).isInstanceOf(LeaseLost.class);
			// Nothing ended the lease: it is left to expire, and the item to its next
			// worker.
			assertThat(admin.leasesOfItem(item.id())).singleElement()
				.satisfies(
						(lease) -> assertThat(lease.outcome()).isNotIn(LeaseOutcome.COMPLETED, LeaseOutcome.RELEASED));
			assertThat(admin.getItem(item.id()).status()).isNotEqualTo(ItemStatus.COMPLETED);
		}
		finally {
			worker.stop(Duration.ofSeconds(5));
		}
	}

}
