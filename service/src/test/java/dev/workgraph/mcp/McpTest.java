package dev.workgraph.mcp;

import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Base of the MCP tests: the service with access control on (MCP is for worker tokens),
 * an operator who makes items and answers questions, and worker tokens for the models.
 */
abstract class McpTest extends ServiceTest {

	/** The bootstrap admin token the subclass configures. */
	abstract String adminToken();

	Api operator() {
		return this.api.as(adminToken());
	}

	UUID itemIn(String title, String queue) {
		Api.Response created = operator().post("/items", Map.of("title", title, "queue", queue));
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		return created.id();
	}

	/** A new worker token for this worker, as a model's host would be given. */
	String workerToken(String workerId) {
		Api.Response created = operator().post("/tokens",
				Map.of("name", "agent " + workerId, "role", "worker", "workerId", workerId));
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		return created.body().path("token").asString();
	}

}
