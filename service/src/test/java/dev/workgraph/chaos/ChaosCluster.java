package dev.workgraph.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a chaos run runs against: a throwaway PostgreSQL cluster with one fresh database,
 * and service instances (separate JVMs) sharing it. The pool is small and its connection
 * timeout short, so an exhausted pool answers 503 quickly.
 */
final class ChaosCluster implements AutoCloseable {

	private static final int POOL_SIZE = 8;

	private static final long POOL_TIMEOUT_MILLIS = 1500;

	private final ThrowawayPostgres postgres;

	private final String database;

	private final List<ServiceInstance> instances = new ArrayList<>();

	private ChaosCluster(ThrowawayPostgres postgres, String database) {
		this.postgres = postgres;
		this.database = database;
	}

	static ChaosCluster start(int instanceCount, Path logs) {
		ThrowawayPostgres postgres = ThrowawayPostgres.start();
		ChaosCluster cluster = new ChaosCluster(postgres, "workgraph_chaos");
		try {
			postgres.createDatabase(cluster.database);
			Map<String, String> properties = new LinkedHashMap<>();
			properties.put("spring.datasource.url", postgres.jdbcUrl(cluster.database));
			properties.put("spring.datasource.username", "postgres");
			properties.put("spring.datasource.password", "");
			properties.put("spring.datasource.hikari.maximum-pool-size", Integer.toString(POOL_SIZE));
			properties.put("spring.datasource.hikari.connection-timeout", Long.toString(POOL_TIMEOUT_MILLIS));
			// The documented default: a second in which a lease is dead but not yet
			// recorded.
			properties.put("workgraph.lease.reaper-interval", "1s");
			// Two expiries in a row already trip the crash-loop guard: exercised more
			// often.
			properties.put("workgraph.lease.max-consecutive-expirations", "2");
			properties.put("spring.main.banner-mode", "off");
			properties.put("workgraph.security.enabled", "false");
			for (int i = 0; i < instanceCount; i++) {
				Map<String, String> clock = (i == 1) ? wrongClock() : Map.of();
				cluster.instances.add(new ServiceInstance("instance-" + i, properties, clock,
						clock.isEmpty() ? "the machine's clock" : "a clock " + clock.get("FAKETIME") + " (libfaketime)",
						logs.resolve("instance-" + i + ".log")));
			}
			// Side by side: Flyway's lock lets one migrate while the other waits.
			// Never leave a service process behind, however the test JVM ends.
			Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
			cluster.instances.parallelStream().forEach(ServiceInstance::start);
			return cluster;
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * The second instance runs an hour ahead under libfaketime when it is installed
	 * (Debian package {@code faketime}), to show that lease math uses PostgreSQL's clock
	 * only. The offset is constant, so the JVM's timers (differences of the monotonic
	 * clock) keep working; leaving the monotonic clock unfaked instead
	 * ({@code FAKETIME_DONT_FAKE_MONOTONIC}) makes every clock call several times slower.
	 * {@code -Dchaos.faketime=false} turns it off.
	 */
	private static Map<String, String> wrongClock() {
		if ("false".equals(System.getProperty("chaos.faketime"))) {
			return Map.of();
		}
		for (String library : List.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
				"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1")) {
			if (Files.isReadable(Path.of(library))) {
				return Map.of("LD_PRELOAD", library, "FAKETIME", "+1h");
			}
		}
		return Map.of();
	}

	ThrowawayPostgres postgres() {
		return this.postgres;
	}

	List<ServiceInstance> instances() {
		return this.instances;
	}

	int poolSize() {
		return POOL_SIZE;
	}

	long poolTimeoutMillis() {
		return POOL_TIMEOUT_MILLIS;
	}

	Connection connect() throws SQLException {
		return this.postgres.connect(this.database);
	}

	/**
	 * Empties every table (the schema stays), so the next scenario starts from a fresh
	 * database without restarting the service processes. Lease history refuses TRUNCATE
	 * by trigger; as a superuser we switch triggers off for this statement.
	 */
	void reset() {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			List<String> tables = new ArrayList<>();
			try (ResultSet rs = statement.executeQuery("select tablename from pg_tables where schemaname = 'public'"
					+ " and tablename <> 'flyway_schema_history'")) {
				while (rs.next()) {
					tables.add(rs.getString(1));
				}
			}
			statement.execute("set session_replication_role = replica");
			statement.execute("truncate " + String.join(", ", tables));
			statement.execute("set session_replication_role = default");
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not empty the chaos database: " + ex.getMessage(), ex);
		}
	}

	/** Makes sure every instance runs (a scenario may have left one killed). */
	void ensureRunning() {
		for (ServiceInstance instance : this.instances) {
			if (!instance.alive()) {
				instance.start();
			}
		}
	}

	@Override
	public void close() {
		for (ServiceInstance instance : this.instances) {
			try {
				instance.kill();
			}
			catch (RuntimeException ex) {
				System.err.println("Could not stop " + instance.name() + ": " + ex.getMessage());
			}
		}
		this.postgres.close();
	}

}
