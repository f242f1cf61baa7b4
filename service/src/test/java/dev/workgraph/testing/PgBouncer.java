package dev.workgraph.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.springframework.boot.SpringApplication;

/**
 * A real PgBouncer in transaction mode, started by a test in front of a PostgreSQL
 * server: its own configuration, log and free loopback port in a temporary directory,
 * stopped and deleted on {@link #close()}. It is what operators put in front of
 * PostgreSQL when many service instances would exhaust {@code max_connections}
 * (docs/scaling.md).
 *
 * <p>
 * The binary is {@code -Dpgbouncer.bin}, else {@code pgbouncer} from {@code /usr/sbin},
 * {@code /usr/bin} or the {@code PATH} (Debian package {@code pgbouncer}). Where there is
 * none, tests that need it are skipped with a message that says so, except under
 * {@code CI=true}, where a missing PgBouncer is a failure ({@code .ci/run} installs it).
 * PgBouncer refuses to run as root: as root it runs in a user namespace of its own
 * ({@code unshare -U}) or as the {@code postgres} user.
 */
public final class PgBouncer implements AutoCloseable {

	private final Path directory;

	private final int port;

	private final Process process;

	private PgBouncer(Path directory, int port, Process process) {
		this.directory = directory;
		this.port = port;
		this.process = process;
	}

	/**
	 * Starts PgBouncer in transaction mode in front of {@code host:port}; every database
	 * of that server is reachable through it under its own name.
	 * @param serverPoolSize server connections per database and user: what the server
	 * sees however many clients connect
	 */
	public static PgBouncer start(String host, int port, int serverPoolSize) {
		Path binary = binary();
		Path directory;
		try {
			directory = Files.createTempDirectory("workgraph-pgbouncer-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		int listenPort = freePort();
		List<String> asNonRoot = asNonRoot();
		try {
			Files.writeString(directory.resolve("users.txt"), "\"postgres\" \"\"\n", StandardCharsets.UTF_8);
			Files.writeString(directory.resolve("pgbouncer.ini"),
					configuration(directory, host, port, listenPort, serverPoolSize), StandardCharsets.UTF_8);
			if (asNonRoot.contains("postgres")) {
				run(List.of("chown", "-R", "postgres", directory.toString()));
			}
			List<String> command = new ArrayList<>(asNonRoot);
			command.add(binary.toString());
			command.add(directory.resolve("pgbouncer.ini").toString());
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(directory.resolve("stdout.log").toFile())
				.start();
			process.getOutputStream().close();
			PgBouncer bouncer = new PgBouncer(directory, listenPort, process);
			// Stopped at the JVM's exit once the cached contexts that may use it have
			// closed, not under them (see TestDatabase).
			SpringApplication.getShutdownHandlers().add(bouncer::close);
			bouncer.awaitListening();
			return bouncer;
		}
		catch (IOException ex) {
			delete(directory);
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Transaction mode: a server connection belongs to a client for one transaction only,
	 * which is why the service must keep no session state. pgjdbc sends
	 * {@code extra_float_digits} at start-up, which PgBouncer 1.18 does not track: it
	 * must be ignored or every connection is refused.
	 */
	private static String configuration(Path directory, String host, int port, int listenPort, int serverPoolSize) {
		return """
				[databases]
				* = host=%s port=%d

				[pgbouncer]
				listen_addr = 127.0.0.1
				listen_port = %d
				unix_socket_dir =
				auth_type = trust
				auth_file = %s
				pool_mode = transaction
				default_pool_size = %d
				max_client_conn = 1000
				ignore_startup_parameters = extra_float_digits
				server_connect_timeout = 5
				server_login_retry = 1
				query_wait_timeout = 30
				logfile = %s
				""".formatted(host, port, listenPort, directory.resolve("users.txt"), serverPoolSize,
				directory.resolve("pgbouncer.log"));
	}

	public int port() {
		return this.port;
	}

	/**
	 * A JDBC URL for {@code database} through PgBouncer. {@code prepareThreshold=0} keeps
	 * pgjdbc from naming server-side prepared statements, which PgBouncer 1.18 in
	 * transaction mode cannot carry from one server connection to the next.
	 */
	public String jdbcUrl(String database) {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/" + database + "?prepareThreshold=0";
	}

	/** What PgBouncer has logged so far, for failure messages. */
	public String log() {
		// In a user namespace of its own it may not open its log file, and then writes
		// to its standard output only.
		for (String name : List.of("pgbouncer.log", "stdout.log")) {
			try {
				String log = Files.readString(this.directory.resolve(name), StandardCharsets.UTF_8);
				if (!log.isBlank()) {
					return log;
				}
			}
			catch (IOException ex) {
				// Try the next.
			}
		}
		return "(no log in " + this.directory + ")";
	}

	@Override
	public synchronized void close() {
		if (this.process.isAlive()) {
			List<ProcessHandle> tree = new ArrayList<>(this.process.descendants().toList());
			tree.add(this.process.toHandle());
			tree.forEach(ProcessHandle::destroyForcibly);
			try {
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		delete(this.directory);
	}

	private void awaitListening() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				String output = log();
				close();
				throw new IllegalStateException("PgBouncer exited at start-up:\n" + output);
			}
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", this.port), 500);
				return;
			}
			catch (IOException ex) {
				sleep(100);
			}
		}
		close();
		throw new IllegalStateException("PgBouncer did not listen on port " + this.port + " within 30 s");
	}

	/** Whether a PgBouncer binary is installed here (see {@link #start}). */
	public static boolean installed() {
		return find() != null;
	}

	/**
	 * The binary; outside CI a missing one skips the test, under {@code CI=true} it fails
	 * it.
	 */
	private static Path binary() {
		Path found = find();
		if (found != null) {
			return found;
		}
		InstalledTools.missing("PgBouncer is not installed (Debian package 'pgbouncer'; or set -Dpgbouncer.bin): "
				+ "the tests through a connection pooler are skipped");
		return null;
	}

	private static Path find() {
		String configured = System.getProperty("pgbouncer.bin");
		if (configured != null && !configured.isBlank()) {
			return Files.isExecutable(Path.of(configured)) ? Path.of(configured) : null;
		}
		// Debian installs it in /usr/sbin, which is not on every user's PATH.
		for (Path candidate : List.of(Path.of("/usr/sbin/pgbouncer"), Path.of("/usr/bin/pgbouncer"))) {
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return InstalledTools.onPath("pgbouncer");
	}

	private static List<String> asNonRoot() {
		if (!"root".equals(System.getProperty("user.name"))) {
			return List.of();
		}
		try {
			if (!"0".equals(run(List.of("unshare", "-U", "id", "-u")).strip())) {
				return List.of("unshare", "-U");
			}
		}
		catch (RuntimeException ex) {
			// No user namespaces here: try the postgres user below.
		}
		return List.of("runuser", "-u", "postgres", "--");
	}

	private static String run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			process.getOutputStream().close();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("Failed: " + String.join(" ", command) + "\n" + output);
			}
			return output;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void delete(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> files = Files.walk(directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			System.err.println("Could not delete " + directory + ": " + ex.getMessage());
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
