package dev.workgraph.database;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import dev.workgraph.testing.FreshDatabase;
import dev.workgraph.testing.ServiceInstance;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * An upgrade whose migration runs longer than the driver's socket timeout and the query
 * timeout still starts, and the running service's connections keep the socket timeout.
 * Both timeouts are one second here and the extra migration sleeps for 2.5 s, as an index
 * build over millions of items outlasts the default 25 and 30 s.
 */
class MigrationsWithoutSocketTimeoutTests {

	private static final int TIMEOUT_SECONDS = 1;

	@Test
	void aMigrationOutlastingTheSocketTimeoutCompletesAndThePoolKeepsTheTimeout() throws SQLException {
		try (FreshDatabase database = FreshDatabase.create();
				ServiceInstance service = ServiceInstance.start("untimed-migrations", database,
						"--spring.datasource.hikari.data-source-properties.socketTimeout=" + TIMEOUT_SECONDS,
						"--spring.jdbc.template.query-timeout=" + TIMEOUT_SECONDS + "s",
						"--spring.flyway.locations=classpath:db/migration,classpath:db/slow-migration")) {
			HikariDataSource pool = service.bean(HikariDataSource.class);
			JdbcClient jdbc = JdbcClient.create(pool);
			assertThat(jdbc.sql("select success from flyway_schema_history where version = '1000'")
				.query(Boolean.class)
				.single()).isTrue();

			// Every connection in the pool, the one Flyway used among them.
			List<Connection> borrowed = new ArrayList<>();
			try {
				for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
					borrowed.add(pool.getConnection());
				}
				for (Connection connection : borrowed) {
					assertThat(connection.getNetworkTimeout()).isEqualTo(TIMEOUT_SECONDS * 1000);
				}
			}
			finally {
				for (Connection connection : borrowed) {
					connection.close();
				}
			}
			assertThatException().isThrownBy(() -> jdbc.sql("select pg_sleep(2.5)").query().singleValue());
		}
	}

}
