package dev.workgraph.access;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.workgraph.testing.Api;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Base of the hostile access tests: the secured service of {@link SecuredServiceTest}
 * (the same running instance), and tokens issued and revoked through the admin API with
 * their ids kept, so that a test can revoke them and knows every secret it must never see
 * again.
 */
abstract class HostileTest extends SecuredServiceTest {

	protected Api bootstrapAdmin() {
		return this.api.as(ADMIN_TOKEN);
	}

	protected Api as(Issued token) {
		return this.api.as(token.token());
	}

	protected static Api as(Api api, Issued token) {
		return api.as(token.token());
	}

	/**
	 * Issues a token through the admin API; {@code workerId} only for the worker role.
	 */
	protected Issued issue(String name, String role, String workerId) {
		return issue(bootstrapAdmin(), name, role, workerId);
	}

	static Issued issue(Api admin, String name, String role, String workerId) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("name", name);
		body.put("role", role);
		if (workerId != null) {
			body.put("workerId", workerId);
		}
		Api.Response created = admin.post("/tokens", body);
		assertThat(created.status()).as("POST /tokens answered %d", created.status()).isEqualTo(201);
		String token = created.body().path("token").asString();
		assertThat(token).as("the new token's secret").isNotBlank();
		return new Issued(created.body().path("id").asString(), name, role, workerId, token);
	}

	protected void revoke(Issued token) {
		revoke(bootstrapAdmin(), token);
	}

	static void revoke(Api admin, Issued token) {
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
