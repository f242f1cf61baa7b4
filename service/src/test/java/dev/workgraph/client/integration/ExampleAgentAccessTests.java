package dev.workgraph.client.integration;

import java.time.Duration;
import java.util.UUID;

import dev.workgraph.client.IssuedToken;
import dev.workgraph.client.Item;
import dev.workgraph.client.ItemStatus;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.NewToken;
import dev.workgraph.client.TokenRole;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.problem.Unauthenticated;
import dev.workgraph.client.worker.Worker;
import dev.workgraph.examples.AgentAccess;
import dev.workgraph.examples.ExampleAgent;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The example agent against a service with access control on, as the quick start runs it:
 * given the admin token, it mints a worker token of its own, seeds its plan as the admin
 * and works as its worker; without the right token it says the service refused, and how
 * to fix it, never that it could not reach it.
 */
@TestPropertySource(properties = { "workgraph.security.enabled=true",
		"workgraph.security.bootstrap-admin-token=" + ExampleAgentAccessTests.ADMIN_TOKEN })
class ExampleAgentAccessTests extends ServiceTest {

	/** The access tests' bootstrap token, so that all share one service. */
	static final String ADMIN_TOKEN = "access-tests-bootstrap-admin-token";

	private final String queue = "examples-" + UUID.randomUUID();

	private String url() {
		return "http://127.0.0.1:" + this.port;
	}

	@Test
	void withTheAdminTokenItMintsAWorkerTokenOfItsOwnSeedsAndWorksAsItsWorker() throws Exception {
		WorkGraphClient admin = WorkGraphClient.builder(url()).token(ADMIN_TOKEN).build();
		IssuedToken minted;
		try (AgentAccess access = new AgentAccess(url(), null, ADMIN_TOKEN)) {
			WorkGraphClient client = access.worker("example-agent");
			minted = access.minted();
			assertThat(minted.role()).isEqualTo(TokenRole.WORKER);
			assertThat(minted.workerId()).isEqualTo("example-agent");
			Item plan = access.seed(this.queue);
			Worker worker = ExampleAgent.worker(client, "example-agent", this.queue, 2, 6).start();
			try {
				Items.awaitStatus(admin, plan.id(), ItemStatus.BLOCKED, Duration.ofSeconds(30));
				assertThat(admin.leasesOfItem(plan.id())).singleElement().satisfies((lease) -> {
					assertThat(lease.outcome()).isEqualTo(LeaseOutcome.DECOMPOSED);
					assertThat(lease.workerId()).isEqualTo("example-agent");
				});
			}
			finally {
				worker.stop(Duration.ofSeconds(5));
			}
		}
		// Closed: the token served this run only.
		assertThatExceptionOfType(Unauthenticated.class).isThrownBy(
				() -> WorkGraphClient.builder(url()).token(minted.token()).build().leasesOfItem(UUID.randomUUID()));
		assertThat(admin.listTokens()).filteredOn((token) -> token.id().equals(minted.id()))
			.singleElement()
			.satisfies((token) -> assertThat(token.revokedAt()).isNotNull());
	}

	@Test
	void withoutATokenSeedingIsRefusedAndTheAdminTokenNamedAsTheFix() {
		try (AgentAccess access = new AgentAccess(url(), null, null)) {
			access.worker("example-agent");
			assertThatExceptionOfType(AgentAccess.Refused.class).isThrownBy(() -> access.seed(this.queue))
				.withMessageStartingWith(
						"Work Graph at " + url() + " refused to seed the demo plan (401 unauthenticated")
				.withMessageContaining("access control is on, and the agent has no token. Export WG_ADMIN_TOKEN")
				.withMessageNotContaining("reach");
		}
	}

	@Test
	void withAWorkerTokenSeedingIsRefusedAndSeedingAsAnOperatorNamedAsTheFix() {
		WorkGraphClient admin = WorkGraphClient.builder(url()).token(ADMIN_TOKEN).build();
		IssuedToken workerToken = admin.createToken(NewToken.worker("example-agent", "example-agent"));
		try (AgentAccess access = new AgentAccess(url(), workerToken.token(), null)) {
			access.worker("example-agent");
			assertThat(access.minted()).isNull();
			assertThatExceptionOfType(AgentAccess.Refused.class).isThrownBy(() -> access.seed(this.queue))
				.withMessageStartingWith("Work Graph at " + url() + " refused to seed the demo plan (403 forbidden")
				.withMessageContaining("a worker token may not create items. Export WG_ADMIN_TOKEN too")
				.withMessageContaining("seed the plan yourself as an operator");
		}
	}

	@Test
	void aWrongAdminTokenIsRefusedWhenMinting() {
		try (AgentAccess access = new AgentAccess(url(), null, "not-the-admin-token")) {
			assertThatExceptionOfType(AgentAccess.Refused.class).isThrownBy(() -> access.worker("example-agent"))
				.withMessageStartingWith("Work Graph at " + url()
						+ " refused to mint a worker token for example-agent (401 unauthenticated")
				.withMessageContaining("WG_ADMIN_TOKEN (or --admin-token) is not a token the service knows");
		}
	}

	@Test
	void anOperatorsTokenGivenAsTheAdminTokenIsRefusedWhenMinting() {
		WorkGraphClient admin = WorkGraphClient.builder(url()).token(ADMIN_TOKEN).build();
		IssuedToken operator = admin.createToken(NewToken.operator("ops"));
		try (AgentAccess access = new AgentAccess(url(), null, operator.token())) {
			assertThatExceptionOfType(AgentAccess.Refused.class).isThrownBy(() -> access.worker("example-agent"))
				.withMessageContaining("refused to mint a worker token for example-agent (403 forbidden")
				.withMessageEndingWith("WG_ADMIN_TOKEN (or --admin-token) is not an admin token.");
		}
	}

}
