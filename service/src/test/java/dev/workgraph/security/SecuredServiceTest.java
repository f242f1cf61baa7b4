package dev.workgraph.security;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real service with access control on, as it runs by default, and a known bootstrap
 * admin token to issue the other tokens with. Every class extending this shares one
 * running service.
 */
@TestPropertySource(properties = { "workgraph.security.enabled=true",
		"workgraph.security.bootstrap-admin-token=" + SecuredServiceTest.BOOTSTRAP_TOKEN })
abstract class SecuredServiceTest extends ServiceTest {

	static final String BOOTSTRAP_TOKEN = "wg_hostileTestsBootstrapAdmin_0123456789abcdefghijklmnopq";

	protected Caller admin() {
		return Caller.bearer(this.api, BOOTSTRAP_TOKEN);
	}

	protected Caller as(Issued token) {
		return Caller.bearer(this.api, token.token());
	}

	protected Caller as(Api api, Issued token) {
		return Caller.bearer(api, token.token());
	}

	/**
	 * Issues a token through the admin API; {@code workerId} only for the worker role.
	 */
	protected Issued issue(String name, String role, String workerId) {
		return issue(admin(), name, role, workerId);
	}

	protected static Issued issue(Caller admin, String name, String role, String workerId) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("name", name);
		body.put("role", role);
		if (workerId != null) {
			body.put("workerId", workerId);
		}
		Api.Response created = admin.post("/tokens", body);
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		String token = created.body().path("token").asString();
		assertThat(token).as(created.toString()).isNotBlank();
		return new Issued(created.body().path("id").asString(), name, role, workerId, token);
	}

	protected void revoke(Issued token) {
		revoke(admin(), token);
	}

	protected static void revoke(Caller admin, Issued token) {
		Api.Response revoked = admin.delete("/tokens/" + token.id());
		assertThat(revoked.status()).as(revoked.toString()).isEqualTo(204);
	}

	/** A token as {@code POST /tokens} issued it, secret included. */
	record Issued(String id, String name, String role, String workerId, String token) {

		@Override
		public String toString() {
			// Never the secret: test names and failure messages end up in reports.
			return this.role + " token " + this.name;
		}

	}

}
