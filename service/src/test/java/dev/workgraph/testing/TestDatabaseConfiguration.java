package dev.workgraph.testing;

import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** Points the application at this run's {@link TestDatabase}. */
@TestConfiguration(proxyBeanMethods = false)
public class TestDatabaseConfiguration {

	@Bean
	JdbcConnectionDetails testDatabase() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
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
