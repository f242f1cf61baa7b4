package dev.workgraph.access;

import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.BeforeEach;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Base of the tests about access: the service with access control on and a configured
 * bootstrap admin token; helpers that mint tokens through the API.
 */
@TestPropertySource(properties = { "workgraph.security.enabled=true",
		"workgraph.security.bootstrap-admin-token=" + SecuredServiceTest.ADMIN_TOKEN })
abstract class SecuredServiceTest extends ServiceTest {

	static final String ADMIN_TOKEN = "access-tests-bootstrap-admin-token";

	/** The bootstrap admin. */
	protected Api admin;

	/** An operator named {@code ops}. */
	protected Api operator;

	@BeforeEach
	void signIn() {
		this.admin = this.api.as(ADMIN_TOKEN);
		this.operator = this.api.as(token("ops", "operator", null).path("token").asString());
	}

	/** {@code POST /tokens} as the admin; the answer, with the secret. */
	protected tools.jackson.databind.JsonNode token(String name, String role, String workerId) {
		Map<String, Object> body = new java.util.LinkedHashMap<>();
		body.put("name", name);
		body.put("role", role);
		if (workerId != null) {
			body.put("workerId", workerId);
		}
		Api.Response created = this.admin.post("/tokens", body);
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		return created.body();
	}

	/** A client with a fresh worker token for this worker. */
	protected Api worker(String workerId) {
		return this.api.as(token("agent " + workerId, "worker", workerId).path("token").asString());
	}

	/** Creates an item as the operator, in its own queue, and returns its id. */
	protected UUID itemIn(String queue) {
		Api.Response created = this.operator.post("/items", Map.of("title", "work in " + queue, "queue", queue));
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		return created.id();
	}

}
