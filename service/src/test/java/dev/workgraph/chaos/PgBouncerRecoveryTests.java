package dev.workgraph.chaos;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.workgraph.testing.PgBouncer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long the service's pool, configured as in application.yml, takes to serve
 * statements again through PgBouncer (transaction mode, as in the scale-out tests) after
 * PostgreSQL restarts under load: from the moment the restart has finished to the first
 * moment after which every statement succeeds.
 */
@Tag("chaos")
class PgBouncerRecoveryTests {

	@Test
	void statementsSucceedAgainWithinTenSecondsOfARestart() throws Exception {
		try (ThrowawayPostgres postgres = ThrowawayPostgres.start();
				PgBouncer bouncer = PgBouncer.start("127.0.0.1", postgres.port(), 5);
				HikariDataSource pool = pool(bouncer.jdbcUrl("postgres"))) {
			for (String mode : List.of("fast", "immediate")) {
				AtomicBoolean running = new AtomicBoolean(true);
				AtomicLong lastFailure = new AtomicLong();
				AtomicLong successes = new AtomicLong();
				List<Thread> load = new ArrayList<>();
				for (int i = 0; i < 16; i++) {
					load.add(Thread.ofPlatform().start(() -> {
						while (running.get()) {
							try (Connection connection = pool.getConnection();
									Statement statement = connection.createStatement()) {
								statement.setQueryTimeout(25);
								statement.execute("select pg_sleep(0.005)");
								successes.incrementAndGet();
							}
							catch (SQLException ex) {
								lastFailure.set(System.nanoTime());
							}
						}
					}));
				}
				Thread.sleep(1_000);
				long restartStarted = System.nanoTime();
				postgres.restart(mode);
				long restarted = System.nanoTime();
				long before = successes.get();
				// Recovered once 3 s pass with successes and no failure.
				long deadline = restarted + Duration.ofSeconds(60).toNanos();
				while (System.nanoTime() < deadline) {
					Thread.sleep(100);
					long quietSince = Math.max(lastFailure.get(), restarted);
					if (successes.get() > before && System.nanoTime() - quietSince > Duration.ofSeconds(3).toNanos()) {
						break;
					}
				}
				running.set(false);
				for (Thread thread : load) {
					thread.join();
				}
				long recovered = Math.max(lastFailure.get(), restarted);
				long recoveryMillis = (recovered - restarted) / 1_000_000;
				System.out.printf("RECOVERY %s: restart took %d ms, statements failed until %d ms after it%n", mode,
						(restarted - restartStarted) / 1_000_000, recoveryMillis);
				assertThat(successes.get()).isGreaterThan(before);
				assertThat(recoveryMillis).as("recovery after restart -m %s", mode).isLessThan(10_000);
			}
		}
	}

	/** The pool as application.yml configures the service's. */
	private static HikariDataSource pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername("postgres");
		config.setMaximumPoolSize(10);
		config.setConnectionTimeout(3_000);
		config.addDataSourceProperty("socketTimeout", "30");
		config.addDataSourceProperty("connectTimeout", "5");
		config.addDataSourceProperty("tcpKeepAlive", "true");
		return new HikariDataSource(config);
	}

}
