package dev.workgraph.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL cluster of our own that fault scenarios may restart and crash: initdb into
 * a temporary directory, {@code pg_ctl start} on a free loopback port, stopped and
 * deleted on {@link #close()}. The shared server is never touched. As root, PostgreSQL
 * refuses to run, so every server command runs in a user namespace of its own
 * ({@code unshare -U}, where it is not root, as the embedded database does) or, where
 * those are not allowed, as the {@code postgres} OS user.
 *
 * <p>
 * The binaries are found in {@code -Dchaos.pgbin} or {@code WORKGRAPH_CHAOS_PGBIN} (a
 * directory, or {@code embedded}), the newest {@code /usr/lib/postgresql/N/bin},
 * {@code pg_config --bindir}, or else are those of the embedded database
 * ({@link EmbeddedBinaries}), so no installation is needed.
 */
final class ThrowawayPostgres implements AutoCloseable {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(120);

	private final Path bin;

	private final Path directory;

	private final Path data;

	private final int port;

	/** What server commands are prefixed with: nothing unless we are root. */
	private final List<String> asNonRoot;

	private ThrowawayPostgres(Path bin, Path directory, int port, List<String> asNonRoot) {
		this.bin = bin;
		this.directory = directory;
		this.data = directory.resolve("data");
		this.port = port;
		this.asNonRoot = asNonRoot;
	}

	/**
	 * A streaming standby of this cluster, made the way operators make one
	 * ({@code pg_basebackup -R}: a copy of the running primary that connects back to it
	 * for WAL), and then the primary's <em>synchronous</em> standby: from here on a
	 * commit on the primary is acknowledged only once the standby has flushed its WAL
	 * ({@code synchronous_commit=on}), so promoting the standby loses no acknowledged
	 * transaction. {@code pg_basebackup} ships with the server binaries (Debian's
	 * packages, a PostgreSQL installation), not with the embedded database's binaries
	 * (only initdb, pg_ctl and postgres): where it is missing the test is skipped; under
	 * {@code CI=true} that is a failure, unless the clusters run on the embedded
	 * binaries, which have none.
	 */
	ThrowawayPostgres synchronousStandby() {
		if (!Files.isExecutable(this.bin.resolve("pg_basebackup"))) {
			String message = "Failover tests need pg_basebackup next to initdb in " + this.bin
					+ " (install PostgreSQL's server binaries, e.g. Debian's postgresql-15, or set -Dchaos.pgbin)";
			boolean onEmbeddedBinaries = EmbeddedBinaries.unpackedIn(this.bin);
			if (onEmbeddedBinaries || !"true".equalsIgnoreCase(System.getenv("CI"))) {
				Assumptions.abort(message);
			}
			throw new IllegalStateException(message);
		}
		Path standbyDirectory;
		try {
			standbyDirectory = Files.createTempDirectory("workgraph-chaos-standby-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		ThrowawayPostgres standby = new ThrowawayPostgres(this.bin, standbyDirectory, Ports.free(), this.asNonRoot);
		try {
			if (this.asNonRoot.contains("postgres")) {
				run(List.of("chown", "-R", "postgres:postgres", standbyDirectory.toString()));
			}
			standby.server("pg_basebackup", "-h", "127.0.0.1", "-p", Integer.toString(this.port), "-U", "postgres",
					"-D", standby.data.toString(), "-X", "stream", "-R", "--checkpoint=fast", "--no-sync");
			// The name the primary's synchronous_standby_names refers to.
			Files.writeString(standby.data.resolve("postgresql.auto.conf"),
					"primary_conninfo = 'host=127.0.0.1 port=" + this.port
							+ " user=postgres application_name=standby'\n",
					StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
			standby.pgCtl("start");
			Runtime.getRuntime().addShutdownHook(new Thread(standby::close));
			try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
				statement.execute("alter system set synchronous_standby_names = 'standby'");
				statement.execute("alter system set synchronous_commit = 'on'");
				statement.execute("select pg_reload_conf()");
				long deadline = System.nanoTime() + COMMAND_TIMEOUT.toNanos();
				while (!synchronous(statement)) {
					if (System.nanoTime() > deadline) {
						throw new IllegalStateException(
								"The standby did not become synchronous within " + COMMAND_TIMEOUT);
					}
					Thread.sleep(100);
				}
			}
			return standby;
		}
		catch (IOException ex) {
			standby.close();
			throw new UncheckedIOException(ex);
		}
		catch (SQLException ex) {
			standby.close();
			throw new IllegalStateException("Could not make the standby synchronous: " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			standby.close();
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (RuntimeException ex) {
			standby.close();
			throw ex;
		}
	}

	private static boolean synchronous(Statement statement) throws SQLException {
		try (var rs = statement.executeQuery(
				"select count(*) from pg_stat_replication where application_name = 'standby' and sync_state = 'sync'"
						+ " and state = 'streaming'")) {
			rs.next();
			return rs.getLong(1) == 1;
		}
	}

	/**
	 * Stops the server hard ({@code pg_ctl stop -m immediate}: every server process
	 * killed at once, nothing flushed or handed over), as a machine that dies would; it
	 * stays down.
	 */
	void crash() {
		server("pg_ctl", "-D", this.data.toString(), "-m", "immediate", "-w", "stop");
	}

	/** Turns a standby into a primary that accepts writes ({@code pg_ctl promote}). */
	void promote() {
		server("pg_ctl", "-D", this.data.toString(), "-w", "-t", "90", "promote");
	}

	static ThrowawayPostgres start() {
		Path bin = binaries();
		List<String> asNonRoot = asNonRoot();
		Path directory;
		try {
			directory = Files.createTempDirectory("workgraph-chaos-pg-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		ThrowawayPostgres cluster = new ThrowawayPostgres(bin, directory, Ports.free(), asNonRoot);
		try {
			if (asNonRoot.contains("postgres")) {
				run(List.of("chown", "-R", "postgres:postgres", directory.toString()));
			}
			cluster.server("initdb", "-D", cluster.data.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8",
					"--locale=C", "--no-sync");
			cluster.pgCtl("start");
			Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
			return cluster;
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	int port() {
		return this.port;
	}

	String jdbcUrl(String database) {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/" + database;
	}

	Connection connect(String database) throws SQLException {
		return DriverManager.getConnection(jdbcUrl(database), "postgres", "");
	}

	void createDatabase(String name) {
		try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
			statement.execute("create database " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create database " + name + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Restarts the server. {@code fast} disconnects every session and shuts down cleanly;
	 * {@code immediate} kills the server processes, and the start that follows runs crash
	 * recovery from the WAL.
	 */
	void restart(String mode) {
		pgCtl("restart", "-m", mode);
	}

	/**
	 * Stops the server ({@code fast}: every session disconnected) until
	 * {@link #startServer()}: PostgreSQL down for as long as a scenario needs.
	 */
	void stopServer() {
		pgCtl("stop", "-m", "fast");
	}

	/** Starts the server again after {@link #stopServer()}. */
	void startServer() {
		pgCtl("start");
	}

	@Override
	public synchronized void close() {
		if (!Files.exists(this.directory)) {
			return;
		}
		try {
			if (Files.exists(this.data.resolve("postmaster.pid"))) {
				server("pg_ctl", "-D", this.data.toString(), "-m", "immediate", "-w", "stop");
			}
		}
		catch (RuntimeException ex) {
			System.err.println("Could not stop the throwaway cluster: " + ex.getMessage());
		}
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			System.err.println("Could not delete " + this.directory + ": " + ex.getMessage());
		}
	}

	private void pgCtl(String action, String... extra) {
		List<String> command = new ArrayList<>(
				List.of("pg_ctl", "-D", this.data.toString(), "-l", this.directory.resolve("postgres.log").toString(),
						"-w", "-t", "90", "-o", "-p " + this.port + " -k " + this.directory
								+ " -c listen_addresses=127.0.0.1" + " -c max_connections=120 -c shared_buffers=64MB"));
		command.addAll(List.of(extra));
		command.add(action);
		server(command.toArray(String[]::new));
	}

	/** Runs one of the server binaries, never as root. */
	private void server(String... command) {
		List<String> line = new ArrayList<>(this.asNonRoot);
		line.add(this.bin.resolve(command[0]).toString());
		line.addAll(List.of(command).subList(1, command.length));
		run(line);
	}

	private static String run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			process.getOutputStream().close();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("Timed out: " + String.join(" ", command));
			}
			String text = new String(output, StandardCharsets.UTF_8);
			if (process.exitValue() != 0) {
				throw new IllegalStateException(
						"Failed (" + process.exitValue() + "): " + String.join(" ", command) + "\n" + text);
			}
			return text;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * As root: a user namespace in which the server is not root (its files stay owned by
	 * root outside), or else the {@code postgres} user that a PostgreSQL installation
	 * creates.
	 */
	private static List<String> asNonRoot() {
		if (!"root".equals(System.getProperty("user.name"))) {
			return List.of();
		}
		String namespacedUid = output(List.of("unshare", "-U", "id", "-u"));
		if (namespacedUid != null && !namespacedUid.equals("0")) {
			return List.of("unshare", "-U");
		}
		if (output(List.of("id", "-u", "postgres")) != null) {
			return List.of("runuser", "-u", "postgres", "--");
		}
		throw new IllegalStateException("As root, the chaos tests run PostgreSQL in a user namespace or as the "
				+ "'postgres' user: this machine allows no user namespaces (unshare -U) and has no such user.");
	}

	/** The first line a command prints, or null when it cannot run or fails. */
	private static String output(List<String> command) {
		try {
			return run(command).lines().findFirst().orElse("");
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private static Path binaries() {
		String configured = System.getProperty("chaos.pgbin", System.getenv("WORKGRAPH_CHAOS_PGBIN"));
		if ("embedded".equals(configured)) {
			return EmbeddedBinaries.bin();
		}
		if (configured != null && !configured.isBlank()) {
			return Path.of(configured);
		}
		Path installed = Path.of("/usr/lib/postgresql");
		if (Files.isDirectory(installed)) {
			try (Stream<Path> versions = Files.list(installed)) {
				Path newest = versions.filter((version) -> Files.isExecutable(version.resolve("bin/initdb")))
					.max(Comparator.comparingInt(ThrowawayPostgres::majorVersion))
					.orElse(null);
				if (newest != null) {
					return newest.resolve("bin");
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		String pgConfig = output(List.of("pg_config", "--bindir"));
		if (pgConfig != null && Files.isExecutable(Path.of(pgConfig.strip(), "initdb"))) {
			return Path.of(pgConfig.strip());
		}
		try {
			return EmbeddedBinaries.bin();
		}
		catch (RuntimeException ex) {
			String message = "The chaos tests start their own PostgreSQL cluster and need its server binaries "
					+ "(initdb, pg_ctl): none installed, and the embedded database has none for this platform ("
					+ ex.getMessage() + "). Install PostgreSQL or set -Dchaos.pgbin=/path/to/bin.";
			// A developer with only Docker can still run every other test; CI must not
			// skip them.
			if (!"true".equalsIgnoreCase(System.getenv("CI"))) {
				Assumptions.abort(message);
			}
			throw new IllegalStateException(message, ex);
		}
	}

	private static int majorVersion(Path directory) {
		try {
			return Integer.parseInt(directory.getFileName().toString());
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

}
