package dev.workgraph.testing;

import org.flywaydb.core.Flyway;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A {@link FreshDatabase} with the service's migrations applied, reached over one
 * connection: for plan tests whose statistics no other test's rows may dilute. The
 * connection and the database go on close.
 */
public final class MigratedDatabase implements AutoCloseable {

	private final FreshDatabase database;

	private final SingleConnectionDataSource dataSource;

	private MigratedDatabase(FreshDatabase database, SingleConnectionDataSource dataSource) {
		this.database = database;
		this.dataSource = dataSource;
	}

	public static MigratedDatabase create() {
		FreshDatabase database = FreshDatabase.create();
		SingleConnectionDataSource dataSource = new SingleConnectionDataSource(database.jdbcUrl(), database.username(),
				database.password(), true);
		MigratedDatabase migrated = new MigratedDatabase(database, dataSource);
		try {
			Flyway.configure().dataSource(dataSource).locations("classpath:db/migration").load().migrate();
		}
		catch (RuntimeException ex) {
			migrated.close();
			throw ex;
		}
		return migrated;
	}

	/** The one connection's data source; closing its connections does not close it. */
	public SingleConnectionDataSource dataSource() {
		return this.dataSource;
	}

	public JdbcClient jdbc() {
		return JdbcClient.create(this.dataSource);
	}

	public DataSourceTransactionManager transactionManager() {
		return new DataSourceTransactionManager(this.dataSource);
	}

	@Override
	public void close() {
		this.dataSource.destroy();
		this.database.close();
	}

}
