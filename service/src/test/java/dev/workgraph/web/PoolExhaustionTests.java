package dev.workgraph.web;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * More concurrent requests than pooled connections, for longer than the pool timeout: the
 * callers that cannot get a connection hear, promptly, that the service is overloaded
 * (503 with Retry-After, not a hang and not "the database is unavailable"), and the
 * service answers normally as soon as connections are free again.
 */
class PoolExhaustionTests extends ServiceTest {

	@Autowired
	private DataSource dataSource;

	@Test
	void requestsBeyondAnExhaustedPoolAreToldTheServiceIsOverloaded() throws SQLException {
		UUID id = createItem("waits for a connection");
		HikariDataSource pool = this.dataSource.unwrap(HikariDataSource.class);
		List<Connection> held = new ArrayList<>();
		try {
			while (held.size() < pool.getMaximumPoolSize()) {
				held.add(pool.getConnection());
			}
			long started = System.nanoTime();
			Api.Response busy = this.api.get("/items/" + id);
			long waitedMillis = (System.nanoTime() - started) / 1_000_000;

			assertThat(busy.status()).isEqualTo(503);
			assertThat(busy.body().path("code").asString()).isEqualTo("service_unavailable");
			assertThat(busy.body().path("detail").asString()).contains("overloaded");
			assertThat(busy.header("Retry-After")).isEqualTo("1");
			assertThat(waitedMillis).isLessThan(pool.getConnectionTimeout() + 5_000);
		}
		finally {
			for (Connection connection : held) {
				connection.close();
			}
		}
		assertThat(this.api.get("/items/" + id).status()).isEqualTo(200);
	}

}
