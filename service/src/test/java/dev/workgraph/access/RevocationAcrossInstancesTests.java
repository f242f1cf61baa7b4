package dev.workgraph.access;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.workgraph.sql.ListenerSessions;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.ServiceInstance;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances on one database: a token revoked through one is refused by the other on
 * the very next request, however recently and however often that instance saw it work;
 * and who holds a lease is known alike by the instance that granted it (which remembers)
 * and by the other (which reads it).
 */
class RevocationAcrossInstancesTests extends HostileTest {

	private static ServiceInstance second;

	@BeforeAll
	static void startSecondInstance() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		second = ServiceInstance.start("second-secured-instance", database.jdbcUrl(), database.username(),
				database.password(), "--workgraph.security.bootstrap-admin-token=" + ADMIN_TOKEN);
	}

	@AfterAll
	static void stopSecondInstance() {
		if (second != null) {
			second.close();
		}
	}

	@Test
	void aTokenRevokedThroughOneInstanceIsRefusedByTheOtherOnTheNextRequest() {
		Api[] instances = { this.api, second.api() };
		for (int round = 0; round < 20; round++) {
			Api revoking = instances[round % 2];
			Api other = instances[(round + 1) % 2];
			Issued token = issue(revoking.as(ADMIN_TOKEN), "revoked-across-" + round,
					(round % 4 < 2) ? "operator" : "admin", null);
			// Seen working on both, just now and repeatedly, so a cache would hold it.
			for (int i = 0; i < 5; i++) {
				assertThat(as(other, token).get("/items").status()).isEqualTo(200);
				assertThat(as(revoking, token).get("/items").status()).isEqualTo(200);
			}
			revoke(revoking.as(ADMIN_TOKEN), token);
			Api.Response next = as(other, token).get("/items");
			assertThat(next.status()).as("round %d, the other instance's next request: %s", round, next).isEqualTo(401);
			assertThat(next.code()).isEqualTo("unauthenticated");
			assertThat(as(revoking, token).get("/items").status()).isEqualTo(401);
		}
	}

	@Test
	void aWorkerTokenRevokedWhileInUseOnTheOtherInstanceIsRefusedFromTheNextRequestOn() {
		for (int round = 0; round < 5; round++) {
			Issued token = issue(bootstrapAdmin(), "busy-worker-" + round, "worker", "busy-worker-" + round);
			Api other = second.api();
			AtomicBoolean stop = new AtomicBoolean();
			// When the revocation's answer arrived (System.nanoTime), once it has.
			AtomicLong revokedAt = new AtomicLong(Long.MAX_VALUE);
			ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
			List<Integer> requestsPerThread = Concurrently.run(5, (thread) -> {
				if (thread == 0) {
					for (int i = 0; i < 20; i++) {
						assertThat(as(other, token).post("/claims", "{\"queues\":[\"nothing-here\"]}").status())
							.isEqualTo(204);
					}
					revoke(token);
					revokedAt.set(System.nanoTime());
					sleep(300);
					stop.set(true);
					return 0;
				}
				int requests = 0;
				while (!stop.get()) {
					long sentAt = System.nanoTime();
					Api.Response response = as(other, token).post("/claims", "{\"queues\":[\"nothing-here\"]}");
					requests++;
					if (sentAt > revokedAt.get() && response.status() != 401) {
						wrong.add("sent after the revocation was answered: " + response);
					}
					if (response.status() != 204 && response.status() != 401) {
						wrong.add("neither 204 nor 401: " + response);
					}
				}
				return requests;
			});
			assertThat(wrong).as("round %d", round).isEmpty();
			assertThat(requestsPerThread.stream().mapToInt(Integer::intValue).sum()).isPositive();
			assertThat(as(other, token).get("/leases/01890000-0000-7000-8000-00000000dead").status()).isEqualTo(401);
		}
	}

	@Test
	void aLeaseIsItsWorkersOnBothInstancesWhicheverGrantedIt() {
		Issued holder = issue(bootstrapAdmin(), "holder", "worker", "holder");
		Issued impostor = issue(bootstrapAdmin(), "impostor", "worker", "impostor");
		Api[] instances = { this.api, second.api() };
		for (int round = 0; round < 4; round++) {
			Api granting = instances[round % 2];
			Api other = instances[(round + 1) % 2];
			Api.Response created = bootstrapAdmin().post("/items",
					"{\"title\":\"held across instances\",\"queue\":\"holders\"}");
			assertThat(created.status()).as(created.toString()).isEqualTo(201);
			Api.Response claimed = as(granting, holder).post("/claims", "{\"queues\":[\"holders\"]}");
			assertThat(claimed.status()).as(claimed.toString()).isEqualTo(201);
			String lease = claimed.body().path("lease").path("id").asString();
			String renew = "{\"epoch\":" + claimed.body().path("lease").path("epoch").asLong() + "}";
			for (Api instance : List.of(granting, other)) {
				Api.Response refused = as(instance, impostor).post("/leases/" + lease + "/renew", renew);
				assertThat(refused.status()).as("round %d: %s", round, refused).isEqualTo(403);
				assertThat(refused.code()).isEqualTo("forbidden");
			}
			Api.Response completed = as(other, holder).post("/leases/" + lease + "/complete", renew);
			assertThat(completed.status()).as("round %d: %s", round, completed).isEqualTo(200);
			// Ended now: still the holder's lease on both (fencing answers), another's to
			// the impostor.
			for (Api instance : List.of(granting, other)) {
				assertThat(as(instance, impostor).post("/leases/" + lease + "/complete", renew).status())
					.isEqualTo(403);
				assertThat(as(instance, holder).post("/leases/" + lease + "/complete", renew).code())
					.isEqualTo("lease_ended");
			}
		}
	}

	@Test
	void aRevocationWhileAnInstanceIsNotListeningHoldsThereToo() throws Exception {
		Api[] instances = { this.api, second.api() };
		for (int round = 0; round < 5; round++) {
			Issued token = issue(bootstrapAdmin(), "unheard-" + round, "operator", null);
			seenWorkingOnBoth(token);
			// Both instances lose their listeners: a revocation now is not heard there.
			this.jdbc.sql("select pg_terminate_backend(l.pid) from " + ListenerSessions.REGISTERED)
				.query((rs, n) -> 1)
				.list();
			revoke(instances[round % 2].as(ADMIN_TOKEN), token);
			for (Api instance : instances) {
				Api.Response next = as(instance, token).get("/items");
				assertThat(next.status()).as("round %d: %s", round, next).isEqualTo(401);
			}
		}
	}

	@Test
	void aRevocationWrittenBySqlIsHeardByEveryInstance() throws Exception {
		Issued token = issue(bootstrapAdmin(), "revoked-by-sql", "operator", null);
		seenWorkingOnBoth(token);
		this.jdbc.sql("update access_tokens set revoked_at = now() where id = cast(:id as uuid)")
			.param("id", token.id())
			.update();
		for (Api instance : List.of(this.api, second.api())) {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
			while (as(instance, token).get("/items").status() != 401) {
				assertThat(System.nanoTime()).as("refused within 2 s of the SQL update").isLessThan(deadline);
				Thread.sleep(10);
			}
		}
	}

	@Test
	void aListenerThatNeverConfirmsIsCutOffAndTheRevocationStillAnswers() throws Exception {
		Issued token = issue(bootstrapAdmin(), "silent-listener", "operator", null);
		seenWorkingOnBoth(token);
		try (Connection silent = listenerLookalike()) {
			long start = System.nanoTime();
			revoke(bootstrapAdmin(), token);
			long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(waited).as("waited for the silent session, up to the deadline").isBetween(4_000L, 15_000L);
			assertThat(silent.isValid(2)).as("the silent session was terminated").isFalse();
		}
		assertThat(as(second.api(), token).get("/items").status()).isEqualTo(401);
	}

	@Test
	void aListenerSessionThatGoesAwayIsNotWaitedFor() throws Exception {
		Issued token = issue(bootstrapAdmin(), "gone-listener", "operator", null);
		seenWorkingOnBoth(token);
		Connection leaving = listenerLookalike();
		Thread closer = Thread.ofVirtual().start(() -> {
			try {
				Thread.sleep(500);
				leaving.close();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		long start = System.nanoTime();
		revoke(bootstrapAdmin(), token);
		closer.join();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("answered once it was gone")
			.isBetween(400L, 3_000L);
		assertThat(as(second.api(), token).get("/items").status()).isEqualTo(401);
	}

	@Test
	void twoRevocationsOfOneTokenAtOnceEachHearTheirConfirmations() {
		for (int round = 0; round < 5; round++) {
			Issued token = issue(bootstrapAdmin(), "revoked-twice-" + round, "operator", null);
			seenWorkingOnBoth(token);
			List<Long> millis = Concurrently.run(2, (i) -> {
				long start = System.nanoTime();
				Api.Response revoked = bootstrapAdmin().delete("/tokens/" + token.id());
				assertThat(revoked.status()).as(revoked.toString()).isEqualTo(204);
				return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			});
			// Neither waited for the 5 s deadline that only a silent instance reaches.
			assertThat(millis).as("round %d", round).allSatisfy((m) -> assertThat(m).isLessThan(4_000L));
			assertThat(as(second.api(), token).get("/items").status()).isEqualTo(401);
		}
	}

	/** Used on both instances, repeatedly, so that both remember it. */
	private void seenWorkingOnBoth(Issued token) {
		for (int i = 0; i < 5; i++) {
			assertThat(as(this.api, token).get("/items").status()).isEqualTo(200);
			assertThat(as(second.api(), token).get("/items").status()).isEqualTo(200);
		}
	}

	/** A session that looks like an instance's listener but never confirms anything. */
	private static Connection listenerLookalike() throws Exception {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		Properties settings = new Properties();
		settings.setProperty("user", database.username());
		settings.setProperty("password", database.password());
		Connection connection = DriverManager.getConnection(database.jdbcUrl(), settings);
		try (Statement statement = connection.createStatement()) {
			statement.execute(ListenerSessions.REGISTER);
		}
		return connection;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
