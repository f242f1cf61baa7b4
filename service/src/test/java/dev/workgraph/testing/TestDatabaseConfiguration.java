package dev.workgraph.testing;

import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Points the application at this run's {@link TestDatabase}, directly or, for
 * {@link ThroughPgBouncer} tests, through a PgBouncer.
 */
@TestConfiguration(proxyBeanMethods = false)
public class TestDatabaseConfiguration {

	@Bean
	JdbcConnectionDetails testDatabase(Environment environment) {
		TestDatabase.Coordinates database = environment.getProperty(ThroughPgBouncer.PROPERTY, Boolean.class, false)
				? TestDatabase.throughPgBouncer() : TestDatabase.coordinates();
		return new JdbcConnectionDetails() {

			@Override
			public String getJdbcUrl() {
				return database.jdbcUrl();
			}

			@Override
			public String getUsername() {
				return database.username();
			}

			@Override
			public String getPassword() {
				return database.password();
			}

		};
	}

}
