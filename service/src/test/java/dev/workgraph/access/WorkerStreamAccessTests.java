package dev.workgraph.access;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.StreamConnection;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker stream with access control on: opened only with a worker's token, acting as
 * that worker (its queues, its own leases), and closed, with nothing more done for it,
 * once its token is revoked.
 */
class WorkerStreamAccessTests extends HostileTest {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void onlyAWorkerTokenOpensAStream() {
		assertThat(StreamConnection.refusedHandshake(this.port, null)).isEqualTo(401);
		assertThat(StreamConnection.refusedHandshake(this.port, "not-a-token")).isEqualTo(401);
		Issued operator = issue("stream-operator", "operator", null);
		assertThat(StreamConnection.refusedHandshake(this.port, operator.token())).isEqualTo(403);
		Issued revoked = issue("stream-revoked", "worker", "stream-revoked");
		revoke(revoked);
		assertThat(StreamConnection.refusedHandshake(this.port, revoked.token())).isEqualTo(401);
	}

	@Test
	void aStreamActsAsItsTokensWorkerOnly() throws Exception {
		Issued worker = issue("stream-a", "worker", "stream-a");
		Issued other = issue("stream-b", "worker", "stream-b");
		bootstrapAdmin().post("/items", Map.of("title", "for a", "queue", "acting"));
		try (StreamConnection stream = StreamConnection.open(this.port, worker.token());
				StreamConnection intruder = StreamConnection.open(this.port, other.token())) {
			JsonNode asAnother = stream.hello(Map.of("workerId", "stream-b"));
			assertThat(asAnother.path("problem").path("code").asString()).isEqualTo("forbidden");
			JsonNode welcome = stream.hello(Map.of("queues", List.of("acting")));
			assertThat(welcome.path("body").path("workerId").asString()).isEqualTo("stream-a");
			stream.credit(1);
			JsonNode pushed = stream.nextLease(WAIT);
			assertThat(pushed.path("lease").path("workerId").asString()).isEqualTo("stream-a");
			JsonNode stolen = intruder.request("complete", pushed.path("lease").path("id").asString(),
					Map.of("epoch", pushed.path("lease").path("epoch").asLong()));
			assertThat(stolen.path("problem").path("code").asString()).isEqualTo("forbidden");
			JsonNode own = stream.request("complete", pushed.path("lease").path("id").asString(),
					Map.of("epoch", pushed.path("lease").path("epoch").asLong()));
			assertThat(own.path("status").asInt()).as(own.toString()).isEqualTo(200);
		}
	}

	@Test
	void aQueueScopedTokenStreamsOnlyFromItsQueues() {
		Api.Response created = bootstrapAdmin().post("/tokens", Map.of("name", "scoped-stream", "role", "worker",
				"workerId", "scoped-stream", "queues", List.of("mine")));
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		try (StreamConnection stream = StreamConnection.open(this.port, created.body().path("token").asString())) {
			JsonNode outside = stream.hello(Map.of("queues", List.of("theirs")));
			assertThat(outside.path("problem").path("code").asString()).isEqualTo("forbidden");
			JsonNode welcome = stream.hello(Map.of());
			assertThat(welcome.path("body").path("queues").toString()).isEqualTo("[\"mine\"]");
		}
	}

	@Test
	void aRevokedTokensStreamClosesAndIsGrantedNothingMore() throws Exception {
		Issued worker = issue("stream-revoked-later", "worker", "stream-revoked-later");
		bootstrapAdmin().post("/items", Map.of("title", "held", "queue", "revoking"));
		StreamConnection stream = StreamConnection.open(this.port, worker.token());
		stream.hello(Map.of("queues", List.of("revoking")));
		stream.credit(5);
		JsonNode pushed = stream.nextLease(WAIT);
		assertThat(pushed).isNotNull();
		revoke(worker);
		// From the revocation's answer on, nothing the stream sends is done (if it is
		// still open to send it at all).
		try {
			stream.sendText("{\"type\":\"complete\",\"ref\":\"late\",\"leaseId\":\""
					+ pushed.path("lease").path("id").asString() + "\",\"body\":{\"epoch\":"
					+ pushed.path("lease").path("epoch").asLong() + "}}");
		}
		catch (java.util.concurrent.CompletionException closedAlready) {
			// closed by the revocation before the message could go
		}
		assertThat(stream.awaitClosed(WAIT)).as("closed as unauthenticated").isEqualTo(4401);
		for (int i = 0; i < 3; i++) {
			bootstrapAdmin().post("/items", Map.of("title", "after the revocation", "queue", "revoking"));
		}
		Thread.sleep(300);
		Integer leases = this.jdbc.sql("select count(*) from leases where worker_id = 'stream-revoked-later'")
			.query(Integer.class)
			.single();
		assertThat(leases).as("only the lease granted before the revocation, still held").isEqualTo(1);
		Integer completed = this.jdbc.sql(
				"select count(*) from lease_history where worker_id = 'stream-revoked-later' and outcome = 'completed'")
			.query(Integer.class)
			.single();
		assertThat(completed).as("the completion sent after the revocation").isZero();
	}

	@Test
	void aStreamWhoseTokenWasRevokedUnheardChecksItBeforeItsNextMessage() throws Exception {
		Issued worker = issue("stream-unheard", "worker", "stream-unheard");
		try (StreamConnection stream = StreamConnection.open(this.port, worker.token())) {
			stream.hello(Map.of("queues", List.of("unheard-stream")));
			// Revoked without a word to any instance (see WaitingClaimRevocationTests);
			// then
			// a revocation of every token, which makes every stream read its token again.
			this.jdbc.sql("""
					with off as (select set_config('session_replication_role', 'replica', true))
					update access_tokens set revoked_at = now() where id = cast(:id as uuid)
					    and (select count(*) from off) = 1
					""").param("id", worker.id()).update();
			this.jdbc.sql("select pg_notify('work_graph_token_revoked', '*')").query((rs, n) -> 1).list();
			Thread.sleep(500);
			stream.credit(1);
			assertThat(stream.awaitClosed(WAIT)).isEqualTo(4401);
		}
	}

}
