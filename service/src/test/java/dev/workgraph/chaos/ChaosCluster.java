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

import dev.workgraph.testing.PgBouncer;

/**
 * What a chaos run runs against: a throwaway PostgreSQL cluster with one fresh database,
 * and service instances (separate JVMs) sharing it. The pool is small and its connection
 * timeout short, so an exhausted pool answers 503 quickly. A {@link Topology} may add
 * what a larger deployment has (docs/scaling.md): a PgBouncer between the instances and
 * PostgreSQL, a synchronous standby to fail over to, a load balancer in front.
 */
final class ChaosCluster implements AutoCloseable {

	private static final int POOL_SIZE = 8;

	private static final long POOL_TIMEOUT_MILLIS = 1500;

	/**
	 * The shape of a deployment.
	 *
	 * @param instances service instances; every second one runs an hour ahead
	 * (libfaketime)
	 * @param pgBouncer the instances reach PostgreSQL through a PgBouncer in transaction
	 * mode
	 * @param standby a synchronous streaming standby, and the instances on a multi-host
	 * URL that targets whichever server is the primary
	 * @param loadBalancer actors send every request to one address in front of the
	 * instances
	 */
	record Topology(int instances, boolean pgBouncer, boolean standby, boolean loadBalancer) {

		static Topology instances(int count) {
			return new Topology(count, false, false, false);
		}

	}

	private final ThrowawayPostgres postgres;

	private final String database;

	private final List<ServiceInstance> instances = new ArrayList<>();

	private final String adminToken = "chaos-admin-" + java.util.UUID.randomUUID();

	private ThrowawayPostgres standby;

	private PgBouncer pgBouncer;

	private LoadBalancer loadBalancer;

	/** Where the instances' logs go, and PgBouncer's when the cluster closes. */
	private final Path logs;

	private ChaosCluster(ThrowawayPostgres postgres, String database, Path logs) {
		this.postgres = postgres;
		this.database = database;
		this.logs = logs;
	}

	static ChaosCluster start(int instanceCount, Path logs) {
		return start(Topology.instances(instanceCount), logs);
	}

	static ChaosCluster start(Topology topology, Path logs) {
		ThrowawayPostgres postgres = ThrowawayPostgres.start();
		ChaosCluster cluster = new ChaosCluster(postgres, "workgraph_chaos", logs);
		try {
			postgres.createDatabase(cluster.database);
			if (topology.standby()) {
				cluster.standby = postgres.synchronousStandby();
			}
			if (topology.pgBouncer()) {
				// Fewer server connections than the instances' pools together: they
				// share.
				cluster.pgBouncer = PgBouncer.start("127.0.0.1", postgres.port(), 12);
			}
			Map<String, String> properties = new LinkedHashMap<>();
			properties.put("spring.datasource.url",
					(cluster.pgBouncer != null) ? cluster.pgBouncer.jdbcUrl(cluster.database) : cluster.directUrl());
			if (cluster.pgBouncer != null) {
				// LISTEN needs a session of its own: the long-poll listener goes around
				// the
				// pooler (docs/scaling.md). Waiting claims are then woken by it alone.
				properties.put("workgraph.notifications.url", cluster.directUrl());
				properties.put("workgraph.notifications.recheck-interval", "10m");
			}
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
			// Expired items back off, as in production, but briefly: the run must drain.
			properties.put("workgraph.retry.backoff", "1s");
			properties.put("workgraph.retry.max-backoff", "4s");
			properties.put("spring.main.banner-mode", "off");
			// Access control on, as in production: the harness acts with the bootstrap
			// admin token and each simulated worker with a worker token of its own.
			properties.put("workgraph.security.bootstrap-admin-token", cluster.adminToken);
			for (int i = 0; i < topology.instances(); i++) {
				Map<String, String> clock = (i % 2 == 1) ? wrongClock() : Map.of();
				cluster.instances.add(new ServiceInstance("instance-" + i, properties, clock,
						clock.isEmpty() ? "the machine's clock" : "a clock " + clock.get("FAKETIME") + " (libfaketime)",
						logs.resolve("instance-" + i + ".log")));
			}
			// Side by side: Flyway's lock lets one migrate while the other waits.
			// Never leave a service process behind, however the test JVM ends.
			Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
			cluster.instances.parallelStream().forEach(ServiceInstance::start);
			if (topology.loadBalancer()) {
				cluster.loadBalancer = new LoadBalancer(cluster.instances);
			}
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

	/**
	 * The database's URL without a pooler: the server itself, or with a standby both
	 * servers, of which pgjdbc picks the one that accepts writes. It rechecks a server it
	 * found unusable after a second, not the default ten, so a promoted standby is used
	 * soon.
	 */
	private String directUrl() {
		if (this.standby == null) {
			return this.postgres.jdbcUrl(this.database);
		}
		return "jdbc:postgresql://127.0.0.1:" + this.postgres.port() + ",127.0.0.1:" + this.standby.port() + "/"
				+ this.database + "?targetServerType=primary&hostRecheckSeconds=1";
	}

	ThrowawayPostgres postgres() {
		return this.postgres;
	}

	/** The bootstrap admin token every instance accepts. */
	String adminToken() {
		return this.adminToken;

	}

	/** The synchronous standby, or null without one. */
	ThrowawayPostgres standby() {
		return this.standby;
	}

	/** The load balancer's base URL, or null when actors address instances themselves. */
	String frontDoor() {
		return (this.loadBalancer != null) ? this.loadBalancer.base() : null;
	}

	LoadBalancer loadBalancer() {
		return this.loadBalancer;
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

	/** The database itself (the primary), never through PgBouncer. */
	Connection connect() throws SQLException {
		return java.sql.DriverManager.getConnection(directUrl(), "postgres", "");
	}

	/**
	 * Empties every table (the schema stays) but the instances' listener registrations
	 * and the change counter (seqs never repeat, as in production: the instances' change
	 * feeds remember the seqs they served), so the next scenario starts from a fresh
	 * database without restarting the service processes. Lease history refuses TRUNCATE
	 * by trigger; as a superuser we switch triggers off for this statement.
	 */
	void reset() {
		for (int attempt = 1;; attempt++) {
			try {
				truncateAll();
				return;
			}
			catch (IllegalStateException ex) {
				// The instances keep running (reaper, sequencer, timers): a truncate of
				// every
				// table can deadlock with one of their statements; PostgreSQL cancels one
				// side.
				if (attempt == 5 || !(ex.getCause() instanceof SQLException sql && "40P01".equals(sql.getSQLState()))) {
					throw ex;
				}
			}
		}
	}

	private void truncateAll() {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			List<String> tables = new ArrayList<>();
			try (ResultSet rs = statement.executeQuery("select tablename from pg_tables where schemaname = 'public'"
					+ " and tablename not in ('flyway_schema_history', 'listener_sessions', 'change_counter')")) {
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
		if (this.loadBalancer != null) {
			this.loadBalancer.close();
		}
		if (this.pgBouncer != null) {
			// Its log goes with the instances': what the pooler did during a restart.
			try {
				Files.createDirectories(this.logs);
				Files.writeString(this.logs.resolve("pgbouncer.log"), this.pgBouncer.log());
			}
			catch (java.io.IOException ex) {
				System.err.println("Could not keep PgBouncer's log: " + ex.getMessage());
			}
			this.pgBouncer.close();
		}
		this.postgres.close();
		if (this.standby != null) {
			this.standby.close();
		}
	}

}
