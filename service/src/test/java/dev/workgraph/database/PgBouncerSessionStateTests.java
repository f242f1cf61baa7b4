package dev.workgraph.database;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.workgraph.sql.GenericPlans;
import dev.workgraph.sql.OneRoundTrip;
import dev.workgraph.testing.PgBouncer;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What PgBouncer 1.18 in transaction mode does to session state, shown with plain JDBC so
 * that the settings docs/scaling.md asks for are not folklore: a server connection
 * belongs to a client for one transaction, so whatever outlives a transaction (a named
 * prepared statement, a session advisory lock, a {@code SET}) ends up on somebody else's
 * connection, or is missing from one's own.
 */
class PgBouncerSessionStateTests {

	private static final String PLAN_CACHE_MODE = "select current_setting('plan_cache_mode')";

	private static PgBouncer pgBouncer;

	private static String database;

	@BeforeAll
	static void startPgBouncer() {
		TestDatabase.Coordinates direct = TestDatabase.coordinates();
		URI server = URI.create(direct.jdbcUrl().substring("jdbc:".length()));
		database = server.getPath().substring(1);
		// Two server connections for all clients: which one a transaction gets varies.
		pgBouncer = PgBouncer.start(server.getHost(), server.getPort(), 2);
	}

	@AfterAll
	static void stopPgBouncer() {
		if (pgBouncer != null) {
			pgBouncer.close();
		}
	}

	/**
	 * pgjdbc's default ({@code prepareThreshold=5}) names a server-side prepared
	 * statement on the fifth execution and reuses the name afterwards; PgBouncer 1.18
	 * does not carry it to the next server connection (protocol-level prepared statements
	 * came with 1.21), so the statement is soon missing (or already exists under that
	 * name). With {@code prepareThreshold=0} the same workload runs cleanly.
	 */
	@Test
	void namedPreparedStatementsBreakUnlessPrepareThresholdIsZero() throws SQLException {
		List<String> failures = workloadThatSwitchesServerConnections(
				"jdbc:postgresql://127.0.0.1:" + pgBouncer.port() + "/" + database);
		assertThat(failures).as("SQL states with pgjdbc's default prepareThreshold")
			.singleElement()
			.isIn("26000", "42P05");
		assertThat(workloadThatSwitchesServerConnections(pgBouncer.jdbcUrl(database)))
			.as("SQL states with prepareThreshold=0")
			.isEmpty();
	}

	/**
	 * A session advisory lock taken through the pooler stays on the server connection
	 * when the client's transaction ends, held by nobody who can release it: the service
	 * takes transaction-scoped locks only ({@code pg_advisory_xact_lock}), which end with
	 * the transaction on whichever connection ran it.
	 */
	@Test
	void onlyTransactionScopedAdvisoryLocksEndWithTheClientsTransaction() throws SQLException {
		try (Connection a = connect(); Connection b = connect()) {
			a.setAutoCommit(false);
			try (Statement statement = a.createStatement()) {
				statement.execute("select pg_advisory_xact_lock(424242)");
			}
			a.commit();
			assertThat(tryLock(b, 424242)).as("a transaction-scoped lock ends with its transaction").isTrue();

			try (Statement statement = a.createStatement()) {
				statement.execute("select pg_advisory_lock(434343)");
			}
			a.commit();
			// The session lock now lives on a server connection that a can no longer
			// reach for sure: b (and every client after it) may be handed that very
			// connection, where the lock counts as its own, or another, where it is
			// taken.
			assertThat(heldAnywhere(434343)).as("a session lock outlives the client's transaction").isTrue();
			try (Connection direct = direct(); Statement statement = direct.createStatement()) {
				statement.execute("select pg_terminate_backend(pid) from pg_locks"
						+ " where locktype = 'advisory' and objid = 434343");
			}
		}
	}

	/**
	 * The plan setting the service sends with a hot query (GenericPlans) is local to the
	 * implicit transaction the two make, so it ends there, whichever client is handed
	 * that server connection next; the same setting made with a plain {@code SET} stays
	 * on the server connection for whoever comes next.
	 */
	@Test
	void aSettingSentWithItsQueryEndsWithItWhereASessionSettingStays() throws SQLException {
		try (Connection a = connect(); Connection b = connect()) {
			OneRoundTrip sendingTogether = new OneRoundTrip(
					new NamedParameterJdbcTemplate(new SingleConnectionDataSource(a, true)));
			Set<String> seenByB = new HashSet<>();
			for (int i = 0; i < 20; i++) {
				List<String> inside = sendingTogether
					.query(GenericPlans.FORCE, (rs, n) -> null, PLAN_CACHE_MODE, (rs, n) -> rs.getString(1), Map.of())
					.second();
				assertThat(inside).containsExactly("force_generic_plan");
				seenByB.add(planCacheMode(b));
			}
			assertThat(seenByB).as("plan_cache_mode seen by another client").containsExactly("auto");

			try (Statement statement = a.createStatement()) {
				statement.execute("set plan_cache_mode = force_generic_plan");
			}
			for (int i = 0; i < 20 && seenByB.size() == 1; i++) {
				seenByB.add(planCacheMode(b));
				planCacheMode(a);
			}
			// It stays on this class's PgBouncer's server connections, which end with it.
			assertThat(seenByB).as("a session SET reaches another client").contains("force_generic_plan");
		}
	}

	private static String planCacheMode(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery(PLAN_CACHE_MODE)) {
			rs.next();
			return rs.getString(1);
		}
	}

	private static boolean tryLock(Connection connection, long key) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("select pg_try_advisory_xact_lock(" + key + ")")) {
			rs.next();
			return rs.getBoolean(1);
		}
	}

	private static boolean heldAnywhere(long key) throws SQLException {
		try (Connection direct = direct();
				Statement statement = direct.createStatement();
				ResultSet rs = statement
					.executeQuery("select count(*) from pg_locks where locktype = 'advisory' and objid = " + key)) {
			rs.next();
			return rs.getLong(1) > 0;
		}
	}

	/**
	 * Two clients, two server connections: one client repeats a prepared statement in
	 * autocommit while the other, now and then, holds a server connection in an open
	 * transaction, so the first is handed the other server connection for a while.
	 */
	private static List<String> workloadThatSwitchesServerConnections(String url) throws SQLException {
		List<String> failures = new ArrayList<>();
		try (Connection repeating = DriverManager.getConnection(url, TestDatabase.coordinates().username(),
				TestDatabase.coordinates().password());
				Connection holding = DriverManager.getConnection(url, TestDatabase.coordinates().username(),
						TestDatabase.coordinates().password());
				PreparedStatement statement = repeating.prepareStatement("select ?::int + 1")) {
			holding.setAutoCommit(false);
			for (int i = 0; i < 60; i++) {
				boolean hold = (i % 3) == 0;
				try {
					if (hold) {
						try (Statement open = holding.createStatement()) {
							open.execute("select 1");
						}
					}
					statement.setInt(1, i);
					try (ResultSet rs = statement.executeQuery()) {
						rs.next();
						assertThat(rs.getInt(1)).isEqualTo(i + 1);
					}
					if (hold) {
						holding.commit();
					}
				}
				catch (SQLException ex) {
					// The broken statement may surface on either client (the other one
					// can be handed the server connection it was prepared on), even in
					// pgjdbc's own COMMIT: the first failure is the answer.
					failures.add(ex.getSQLState());
					break;
				}
			}
		}
		return failures;
	}

	private static Connection connect() throws SQLException {
		return DriverManager.getConnection(pgBouncer.jdbcUrl(database), TestDatabase.coordinates().username(),
				TestDatabase.coordinates().password());
	}

	/** The test database directly, not through the pooler. */
	private static Connection direct() throws SQLException {
		TestDatabase.Coordinates direct = TestDatabase.coordinates();
		return DriverManager.getConnection(direct.jdbcUrl(), direct.username(), direct.password());
	}

}
