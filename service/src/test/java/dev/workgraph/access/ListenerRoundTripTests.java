package dev.workgraph.access;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.concurrent.TimeUnit;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceInstance;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An instance trusts its token memory only shortly after its listener's last round trip:
 * a listener cut off from the database hears no revocation, so its instance must go back
 * to reading tokens from the table within {@link TokenMemory#TRUSTED_FOR}. A listener is
 * stalled here by locking its registration, which each round trip updates.
 */
class ListenerRoundTripTests extends HostileTest {

	private static ServiceInstance second;

	@Autowired
	private TokenMemory memory;

	@BeforeAll
	static void startSecondInstance() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		second = ServiceInstance.start("second-round-trip-instance", database.jdbcUrl(), database.username(),
				database.password(), "--workgraph.security.bootstrap-admin-token=" + ADMIN_TOKEN);
	}

	@AfterAll
	static void stopSecondInstance() {
		if (second != null) {
			second.close();
		}
	}

	@Test
	void anInstanceWhoseListenerStallsStopsTrustingItsMemoryWithinTheBound() throws Exception {
		Issued revoked = issue("unheard-while-stalled", "operator", null);
		Issued kept = issue("kept-while-stalled", "operator", null);
		seenWorking(second.api(), revoked);
		try (Connection stall = stall(second.bean(TokenMemory.class).listenerPid())) {
			// Revoked without a word to any instance, as a partition would lose it.
			this.jdbc.sql("""
					with off as (select set_config('session_replication_role', 'replica', true))
					update access_tokens set revoked_at = now() where id = cast(:id as uuid)
					    and (select count(*) from off) = 1
					""").param("id", revoked.id()).update();
			long start = System.nanoTime();
			while (as(second.api(), revoked).get("/items").status() != 401) {
				assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
					.as("refused within the bound of %s after the listener's last round trip", TokenMemory.TRUSTED_FOR)
					.isLessThan(TokenMemory.TRUSTED_FOR.toMillis() + 1_500);
				Thread.sleep(20);
			}
			// Read from the table instead: a good token still works.
			assertThat(as(second.api(), kept).get("/items").status()).isEqualTo(200);
			stall.rollback();
		}
	}

	@Test
	void aRevokerWhoseOwnListenerIsDownDisconnectsNoHealthyListener() throws Exception {
		Issued token = issue("revoked-by-a-deaf-instance", "operator", null);
		seenWorking(second.api(), token);
		int secondListener = second.bean(TokenMemory.class).listenerPid();
		try (Connection stall = stall(this.memory.listenerPid())) {
			long start = System.nanoTime();
			revoke(token);
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
				.as("confirmed through the database, without the deadline for silent instances")
				.isLessThan(4_000L);
			assertThat(second.bean(TokenMemory.class).listenerPid()).as("the other instance's listener, untouched")
				.isEqualTo(secondListener);
			assertThat(as(second.api(), token).get("/items").status()).isEqualTo(401);
			assertThat(as(this.api, token).get("/items").status()).isEqualTo(401);
			stall.rollback();
		}
	}

	/** Used repeatedly, so that the instance remembers it. */
	private static void seenWorking(Api instance, Issued token) {
		for (int i = 0; i < 5; i++) {
			assertThat(as(instance, token).get("/items").status()).isEqualTo(200);
		}
	}

	/**
	 * A transaction that holds the listener's registration locked: its next round trip
	 * waits for it (closing the connection ends the stall).
	 */
	static Connection stall(int listenerPid) throws Exception {
		assertThat(listenerPid).as("the instance's listener session").isPositive();
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		Connection connection = DriverManager.getConnection(database.jdbcUrl(), database.username(),
				database.password());
		connection.setAutoCommit(false);
		try (PreparedStatement lock = connection
			.prepareStatement("select pid from listener_sessions where pid = ? for update")) {
			lock.setInt(1, listenerPid);
			assertThat(lock.executeQuery().next()).as("the listener's registration").isTrue();
		}
		return connection;
	}

}
