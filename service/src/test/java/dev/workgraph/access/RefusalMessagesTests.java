package dev.workgraph.access;

import dev.workgraph.testing.Api;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 401 says which way the request failed to authenticate, and a 403 which role the
 * request needs, without telling whether a token (or a token id) exists: an unknown and a
 * revoked token get the same words.
 */
class RefusalMessagesTests extends HostileTest {

	@Test
	void aMissingHeaderAnotherSchemeAMalformedAndAnUnknownTokenAreToldApart() {
		assertUnauthenticated(new Api(this.port), "This request has no Authorization header");
		assertUnauthenticated(this.api.withAuthorization("Basic dXNlcjpwYXNz"),
				"The Authorization header must be 'Bearer ' followed by the token");
		assertUnauthenticated(this.api.withAuthorization("wg_" + "a".repeat(43)),
				"The Authorization header must be 'Bearer ' followed by the token");
		assertUnauthenticated(this.api.withAuthorization("Bearer not a token"), "The bearer token is malformed");
		assertUnauthenticated(this.api.as("wg_" + "b".repeat(43)), "The bearer token is not one this service accepts");
	}

	@Test
	void aRevokedTokenGetsTheSameWordsAsAnUnknownOne() {
		Issued token = issue("revoked-for-words", "operator", null);
		revoke(token);
		Api.Response revoked = as(token).get("/items");
		Api.Response unknown = this.api.as("wg_" + "c".repeat(43)).get("/items");
		assertThat(revoked.status()).isEqualTo(401);
		assertThat(revoked.body().path("detail").asString()).isEqualTo(unknown.body().path("detail").asString());
	}

	@Test
	void forbiddenSaysWhichRoleTheRequestNeedsAndWhichTheTokenHas() {
		assertForbidden(this.operator.post("/claims", "{\"workerId\":\"w\"}"),
				"POST /claims needs a worker token; this token's role is operator");
		Api worker = worker("refused-worker");
		assertForbidden(worker.get("/tokens"), "GET /tokens needs an admin token; this token's role is worker");
		assertForbidden(worker.get("/items"),
				"GET /items needs an operator or admin token; this token's role is worker");
		assertForbidden(this.admin.post("/claims/batch", "{\"workerId\":\"w\",\"limit\":1}"),
				"POST /claims/batch needs a worker token");
	}

	private static void assertUnauthenticated(Api client, String detail) {
		Api.Response refused = client.get("/items");
		assertThat(refused.status()).as(refused.toString()).isEqualTo(401);
		assertThat(refused.code()).isEqualTo("unauthenticated");
		assertThat(refused.body().path("detail").asString()).startsWith(detail);
	}

	private static void assertForbidden(Api.Response refused, String detail) {
		assertThat(refused.status()).as(refused.toString()).isEqualTo(403);
		assertThat(refused.code()).isEqualTo("forbidden");
		assertThat(refused.body().path("detail").asString()).startsWith(detail);
	}

}
