package dev.workgraph.access;

import java.util.List;
import java.util.Map;

import dev.workgraph.testing.Api;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tokens are created by an admin, shown once, listed without their secret, and refused
 * from the very next request once revoked.
 */
class TokenLifecycleTests extends SecuredServiceTest {

	@Test
	void aTokenIsARandomSecretShownOnceAndStoredOnlyAsItsHash() {
		JsonNode issued = token("build agent", "worker", "agent-1");
		String secret = issued.path("token").asString();
		assertThat(secret).startsWith("wg_").hasSize(3 + 43); // 256 bits, base64url
		assertThat(issued.path("name").asString()).isEqualTo("build agent");
		assertThat(issued.path("role").asString()).isEqualTo("worker");
		assertThat(issued.path("workerId").asString()).isEqualTo("agent-1");
		assertThat(issued.path("createdAt").asString()).endsWith("Z");
		assertThat(token("other", "worker", "agent-1").path("token").asString()).isNotEqualTo(secret);

		Api.Response listed = this.admin.get("/tokens");
		assertThat(listed.status()).isEqualTo(200);
		assertThat(listed.raw().body()).doesNotContain(secret).doesNotContain("secret").doesNotContain("hash");
		JsonNode entry = tokenEntry(listed, issued.path("id").asString());
		assertThat(entry.has("token")).isFalse();
		assertThat(entry.path("lastUsedAt").isNull()).isTrue();
		assertThat(entry.path("revokedAt").isNull()).isTrue();

		// Nothing in the database can be presented as the token.
		String stored = this.jdbc.sql("select t::text from access_tokens t where id = :id::uuid")
			.param("id", issued.path("id").asString())
			.query(String.class)
			.single();
		assertThat(stored).doesNotContain(secret).doesNotContain(secret.substring(3));
	}

	@Test
	void aRevokedTokenIsRefusedOnTheVeryNextRequest() {
		JsonNode issued = token("ops 2", "operator", null);
		Api ops = this.api.as(issued.path("token").asString());
		assertThat(ops.get("/items").status()).isEqualTo(200);

		Api.Response revoked = this.admin.delete("/tokens/" + issued.path("id").asString());
		assertThat(revoked.status()).isEqualTo(204);

		Api.Response refused = ops.get("/items");
		assertThat(refused.status()).isEqualTo(401);
		assertThat(refused.code()).isEqualTo("unauthenticated");
		assertThat(refused.header("WWW-Authenticate")).startsWith("Bearer");
		assertThat(tokenEntry(this.admin.get("/tokens"), issued.path("id").asString()).path("revokedAt").asString())
			.endsWith("Z");
		// Revoking again changes nothing; an unknown token is 404.
		assertThat(this.admin.delete("/tokens/" + issued.path("id").asString()).status()).isEqualTo(204);
		assertThat(this.admin.delete("/tokens/0190a0b0-0000-7000-8000-000000000000").code()).isEqualTo("not_found");
	}

	@Test
	void aTokenRequestMustMatchItsRole() {
		assertThat(codes(this.admin.post("/tokens", Map.of("name", "w", "role", "worker")),
				this.admin.post("/tokens", Map.of("name", "o", "role", "operator", "workerId", "w1")),
				this.admin.post("/tokens", Map.of("name", "x", "role", "superuser")),
				this.admin.post("/tokens", Map.of("name", "", "role", "admin")),
				this.admin.post("/tokens", Map.of("role", "admin"))))
			.containsOnly("validation_failed");
		assertThat(this.admin.post("/tokens", "{\"name\":").code()).isEqualTo("malformed_request");
		assertThat(count("select count(*) from access_tokens where name <> 'ops'")).isZero();
	}

	@Test
	void onlyAnAdminManagesTokens() {
		Api worker = worker("agent-9");
		for (Api caller : List.of(this.operator, worker)) {
			assertThat(codes(caller.get("/tokens"), caller.post("/tokens", Map.of("name", "n", "role", "admin")),
					caller.delete("/tokens/0190a0b0-0000-7000-8000-000000000000")))
				.containsOnly("forbidden");
		}
		assertThat(this.api.get("/tokens").code()).isEqualTo("unauthenticated");
		JsonNode admin = token("second admin", "admin", null);
		Api second = this.api.as(admin.path("token").asString());
		assertThat(second.get("/tokens").status()).isEqualTo(200);
		// An admin may do everything an operator may.
		assertThat(second.post("/items", Map.of("title", "by an admin")).body().path("createdBy").asString())
			.isEqualTo("second admin");
	}

	/** Any token may read who it is (the console shows it); never its secret. */
	@Test
	void everyTokenReadsWhoItIs() {
		JsonNode issued = token("agent-5 on host 2", "worker", "agent-5");
		Api.Response current = this.api.as(issued.path("token").asString()).get("/tokens/current");
		assertThat(current.status()).isEqualTo(200);
		assertThat(current.body().path("id").asString()).isEqualTo(issued.path("id").asString());
		assertThat(current.body().path("name").asString()).isEqualTo("agent-5 on host 2");
		assertThat(current.body().path("role").asString()).isEqualTo("worker");
		assertThat(current.body().path("workerId").asString()).isEqualTo("agent-5");
		assertThat(current.body().toString()).doesNotContain(issued.path("token").asString());
		assertThat(this.operator.get("/tokens/current").body().path("role").asString()).isEqualTo("operator");
		assertThat(this.api.get("/tokens/current").code()).isEqualTo("unauthenticated");
	}

	@Test
	void lastUsedAtIsWrittenAtMostOnceAMinute() {
		JsonNode issued = token("ops 3", "operator", null);
		String id = issued.path("id").asString();
		Api ops = this.api.as(issued.path("token").asString());
		assertThat(ops.get("/items").status()).isEqualTo(200);
		String first = lastUsedAt(id);
		assertThat(first).isNotNull();
		// now() differs in every transaction, so any further write would change it.
		for (int i = 0; i < 20; i++) {
			assertThat(ops.get("/items").status()).isEqualTo(200);
		}
		assertThat(lastUsedAt(id)).isEqualTo(first);
		assertThat(tokenEntry(this.admin.get("/tokens"), id).path("lastUsedAt").asString()).endsWith("Z");

		// A minute later the next use is recorded again: the instance remembers a token
		// for a minute, then reads it again, which records the use. Instead of waiting,
		// the test ages the last use and makes the instance forget the token (setting its
		// role announces a change, as a revocation does).
		this.jdbc
			.sql("update access_tokens set last_used_at = last_used_at - interval '61 seconds', role = role "
					+ "where id = :id::uuid")
			.param("id", id)
			.update();
		String aged = lastUsedAt(id);
		long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
		while (aged.equals(lastUsedAt(id))) {
			assertThat(System.nanoTime()).as("the next use recorded once the token is read again").isLessThan(deadline);
			assertThat(ops.get("/items").status()).isEqualTo(200);
		}
		assertThat(lastUsedAt(id)).isNotEqualTo(first);
	}

	private String lastUsedAt(String id) {
		return this.jdbc.sql("select last_used_at::text from access_tokens where id = :id::uuid")
			.param("id", id)
			.query(String.class)
			.list()
			.getFirst();
	}

	private static JsonNode tokenEntry(Api.Response listed, String id) {
		for (JsonNode token : listed.body().path("tokens")) {
			if (token.path("id").asString().equals(id)) {
				return token;
			}
		}
		throw new AssertionError("token " + id + " not listed: " + listed);
	}

}
