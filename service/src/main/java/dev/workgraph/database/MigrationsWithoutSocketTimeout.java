package dev.workgraph.database;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.flywaydb.core.api.configuration.FluentConfiguration;

import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.stereotype.Component;

/**
 * Lets the start-up migrations wait for their statements however long they take. The
 * service's connections give up on a statement that has not answered within the JDBC
 * driver's socket timeout (30 s), so that a frozen database cannot hold request threads.
 * A migration that copies or indexes something for every item runs for minutes at
 * millions of items. Cut off after 30 s, it would fail every start of the upgraded
 * service.
 *
 * <p>
 * Flyway borrows its connection from the service's pool, which restores the pool's own
 * timeout when the connection is returned. The service's query timeout (25 s) does not
 * reach the migrations: it is set on the statements of Spring's JDBC templates, and
 * Flyway runs its own.
 */
@Component
class MigrationsWithoutSocketTimeout implements FlywayConfigurationCustomizer {

	@Override
	public void customize(FluentConfiguration configuration) {
		DataSource dataSource = configuration.getDataSource();
		if (dataSource != null) {
			configuration.dataSource(new UntimedConnections(dataSource));
		}
	}

	/** Hands out the target's connections with no network timeout. */
	static final class UntimedConnections extends DelegatingDataSource {

		UntimedConnections(DataSource target) {
			super(target);
		}

		@Override
		public Connection getConnection() throws SQLException {
			return untimed(super.getConnection());
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return untimed(super.getConnection(username, password));
		}

		private static Connection untimed(Connection connection) throws SQLException {
			try {
				// pgjdbc applies it at once; the executor is only for drivers that abort.
				connection.setNetworkTimeout(Runnable::run, 0);
				return connection;
			}
			catch (SQLException | RuntimeException ex) {
				connection.close();
				throw ex;
			}
		}

	}

}
