package dev.workgraph.access;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceInstance;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A revocation waits for every instance's listener session, so they must be found
 * whatever the configuration says: an {@code ApplicationName} in the JDBC URL overrides
 * the name a listener gives itself, and must not make its instance invisible.
 */
class ListenerSessionsTests extends HostileTest {

	private static final String NAME_FROM_URL = "named-by-the-url";

	private static ServiceInstance named;

	@BeforeAll
	static void startAnInstanceWhoseUrlNamesItsSessions() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		String url = database.jdbcUrl() + (database.jdbcUrl().contains("?") ? "&" : "?") + "ApplicationName="
				+ NAME_FROM_URL;
		named = ServiceInstance.start("named-by-url-instance", url, database.username(), database.password(),
				"--workgraph.security.bootstrap-admin-token=" + ADMIN_TOKEN);
	}

	@AfterAll
	static void stopIt() {
		if (named != null) {
			named.close();
		}
	}

	@Test
	void aListenerIsFoundWhateverApplicationNameTheUrlGivesIt() {
		Integer found = this.jdbc
			.sql("select count(*) from (" + Tokens.LISTENER_SESSIONS + ") l "
					+ "join pg_stat_activity a on a.pid = l.pid where a.application_name = :name")
			.param("name", NAME_FROM_URL)
			.query(Integer.class)
			.single();
		assertThat(found).as("listener sessions named by the URL that a revocation waits for").isEqualTo(1);
	}

	@Test
	void aTokenRevokedElsewhereIsRefusedThereOnTheNextRequest() {
		for (int round = 0; round < 5; round++) {
			Issued token = issue("seen-by-the-named-" + round, "operator", null);
			for (int i = 0; i < 5; i++) {
				assertThat(as(named.api(), token).get("/items").status()).isEqualTo(200);
			}
			revoke(token);
			Api.Response next = as(named.api(), token).get("/items");
			assertThat(next.status()).as("round %d: %s", round, next).isEqualTo(401);
		}
	}

}
