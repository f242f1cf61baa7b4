package dev.workgraph.database;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server that the service runs for itself, with its data in a directory
 * that outlives the process. It listens on the loopback interface and on a socket in a
 * private directory, and lets in only connections that prove its password
 * ({@link ServerAccess}): it is for development and for trying the service out, not for
 * production. Started before the connection pool exists and closed after the pool is, as
 * the bean that the pool's connection details depend on.
 */
final class EmbeddedPostgresServer implements AutoCloseable {

	static final String DATABASE = "workgraph";

	static final String USER = "workgraph";

	static final String USE_A_REAL_SERVER = "To use a PostgreSQL server of your own instead, set "
			+ "SPRING_DATASOURCE_URL=jdbc:postgresql://HOST:5432/workgraph with SPRING_DATASOURCE_USERNAME and "
			+ "SPRING_DATASOURCE_PASSWORD (see the README, 'Other ways to run it').";

	private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

	/** initdb and the first start on a busy two-core machine take several seconds. */
	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

	private static final String USER_EXISTS = "select 1 from pg_roles where rolname = '" + USER + "'";

	private static final String CREATE_USER = "create role " + USER + " login";

	private static final String SCRAM = "scram-sha-256";

	private static final String DATABASE_EXISTS = "select 1 from pg_database where datname = '" + DATABASE + "'";

	private static final String CREATE_DATABASE = "create database " + DATABASE + " owner " + USER;

	private static final String SERVER_VERSION = "show server_version";

	private final Path dataDir;

	private final Path serverLog;

	private final DataDirectoryLock lock;

	private final ServerAccess access;

	private final EmbeddedPostgres postgres;

	private EmbeddedPostgresServer(Path dataDir, Path serverLog, DataDirectoryLock lock, ServerAccess access,
			EmbeddedPostgres postgres) {
		this.dataDir = dataDir;
		this.serverLog = serverLog;
		this.lock = lock;
		this.access = access;
		this.postgres = postgres;
	}

	/**
	 * Starts the server on the data directory, creating a new cluster there when it holds
	 * none, and makes sure the service's user and database exist.
	 */
	static EmbeddedPostgresServer start(EmbeddedDatabaseProperties properties) {
		Path dataDir = properties.dataDir().toAbsolutePath().normalize();
		Path serverLog = dataDir.resolveSibling(dataDir.getFileName() + ".log");
		DataDirectoryLock lock = lock(dataDir);
		ServerAccess access = null;
		try {
			boolean fresh = !Files.exists(dataDir.resolve("postgresql.conf"));
			checkInitialisable(dataDir, fresh);
			LeftoverServer.clear(dataDir);
			int port = (properties.port() != 0) ? checkFree(properties.port()) : 0;
			access = ServerAccess.prepare(dataDir, serverLog, fresh);
			EmbeddedPostgres postgres = startPostgres(dataDir, serverLog, port, access);
			EmbeddedPostgresServer server = new EmbeddedPostgresServer(dataDir, serverLog, lock, access, postgres);
			try {
				String version = server.prepareDatabase();
				log.info("Embedded PostgreSQL {} {} on 127.0.0.1:{} and a socket in {}, database '{}', user '{}'; "
						+ "every connection needs the password in {}. Its data is in {} and survives restarts; server "
						+ "log: {}. It is for development and trying Work Graph out. {}", version,
						fresh ? "created and started" : "started", server.port(), access.socketDirectory(), DATABASE,
						USER, dataDir.resolve(ServerAccess.PASSWORD_FILE), dataDir, serverLog, USE_A_REAL_SERVER);
				return server;
			}
			catch (RuntimeException ex) {
				server.close();
				throw ex;
			}
		}
		catch (IOException | RuntimeException | ExceptionInInitializerError ex) {
			// (The library reports binaries it cannot unpack as an initializer error.)
			if (access != null) {
				access.close();
			}
			closeQuietly(lock);
			if (ex instanceof EmbeddedDatabaseUnavailable unavailable) {
				throw unavailable;
			}
			throw new EmbeddedDatabaseUnavailable("The embedded PostgreSQL in " + dataDir + " did not start: "
					+ ex.getMessage() + lastLines(serverLog), whatToTry(ex), ex);
		}
	}

	int port() {
		return this.postgres.getPort();
	}

	String jdbcUrl() {
		return "jdbc:postgresql://127.0.0.1:" + port() + "/" + DATABASE;
	}

	String password() {
		return this.access.password();
	}

	/** A fast shutdown: sessions are ended, and the server checkpoints and exits. */
	@Override
	public void close() {
		try {
			this.postgres.close();
			log.info("Embedded PostgreSQL stopped; its data stays in {}", this.dataDir);
		}
		catch (IOException ex) {
			log.warn("Could not stop the embedded PostgreSQL cleanly: {}; see {}", ex.getMessage(), this.serverLog);
		}
		finally {
			this.access.close();
			closeQuietly(this.lock);
		}
	}

	private static DataDirectoryLock lock(Path dataDir) {
		DataDirectoryLock lock;
		try {
			Files.createDirectories(dataDir.getParent());
			lock = DataDirectoryLock.tryLock(dataDir);
		}
		catch (IOException ex) {
			throw new EmbeddedDatabaseUnavailable(
					"Could not prepare the embedded PostgreSQL's data directory " + dataDir + ": " + ex,
					"Make its parent directory writable, or choose another directory with "
							+ "WORKGRAPH_EMBEDDED_DATABASE_DATA_DIR.",
					ex);
		}
		if (lock == null) {
			throw new EmbeddedDatabaseUnavailable(
					"The embedded PostgreSQL's data directory " + dataDir
							+ " is in use by another Work Graph service that is running.",
					"Stop that service, or give this one a directory of its own with "
							+ "WORKGRAPH_EMBEDDED_DATABASE_DATA_DIR.",
					null);
		}
		return lock;
	}

	/**
	 * initdb needs an empty (or absent) directory: one with files but no cluster is most
	 * likely an initialisation that was interrupted, and is left for the user to look at.
	 */
	private static void checkInitialisable(Path dataDir, boolean fresh) throws IOException {
		if (!fresh || !Files.isDirectory(dataDir)) {
			return;
		}
		try (Stream<Path> entries = Files.list(dataDir)) {
			if (entries.findAny().isPresent()) {
				throw new EmbeddedDatabaseUnavailable(
						dataDir + " is not empty but holds no PostgreSQL cluster (no postgresql.conf): perhaps an "
								+ "earlier first start was interrupted.",
						"If it holds nothing you need, delete it and start again; or choose another directory with "
								+ "WORKGRAPH_EMBEDDED_DATABASE_DATA_DIR.",
						null);
			}
		}
	}

	private static int checkFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
			return port;
		}
		catch (IOException ex) {
			throw new EmbeddedDatabaseUnavailable(
					"The embedded PostgreSQL's port " + port + " (workgraph.embedded-database.port) is in use.",
					"Choose another port with WORKGRAPH_EMBEDDED_DATABASE_PORT, or 0 for any free one.", ex);
		}
	}

	private static EmbeddedPostgres startPostgres(Path dataDir, Path serverLog, int port, ServerAccess access)
			throws IOException {
		ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(serverLog.toFile());
		EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
			.setPgBinaryResolver(PostgresBinaries.INSTANCE)
			.setOverrideWorkingDirectory(PostgresBinaries.workingDirectory().toFile())
			.setDataDirectory(dataDir)
			.setCleanDataDirectory(false)
			// Spring stops it, after the connection pool has closed.
			.setRegisterShutdownHook(false)
			.setPort(port)
			.setPGStartupWait(STARTUP_TIMEOUT)
			// The library's defaults suit throwaway test databases; this data is kept, so
			// commits are durable as on any server.
			.setServerConfig("fsync", "on")
			.setServerConfig("synchronous_commit", "on")
			// The same on every machine, whatever locales it has.
			.setLocaleConfig("locale", "C")
			.setOutputRedirector(toLog)
			.setErrorRedirector(toLog)
			// After initdb and before the server starts: no password, no connection.
			.setDataDirectoryCustomizer(access::secure)
			.setConnectConfig("password", access.password());
		if (access.socketDirectory() != null) {
			// pg_ctl passes the server's options through a shell.
			builder.setServerConfig("unix_socket_directories", "'" + access.socketDirectory() + "'");
		}
		return builder.start();
	}

	/**
	 * Creates the service's user and database when missing, gives the user the password
	 * (as a SCRAM verifier computed here); answers the version.
	 */
	private String prepareDatabase() {
		try (Connection connection = this.postgres.getPostgresDatabase().getConnection();
				Statement statement = connection.createStatement()) {
			if (!exists(statement, USER_EXISTS)) {
				statement.execute(CREATE_USER);
			}
			connection.unwrap(PGConnection.class).alterUserPassword(USER, password().toCharArray(), SCRAM);
			if (!exists(statement, DATABASE_EXISTS)) {
				statement.execute(CREATE_DATABASE);
			}
			try (ResultSet version = statement.executeQuery(SERVER_VERSION)) {
				version.next();
				return version.getString(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("could not create the database '" + DATABASE + "': " + ex.getMessage(), ex);
		}
	}

	private static boolean exists(Statement statement, String query) throws SQLException {
		try (ResultSet rows = statement.executeQuery(query)) {
			return rows.next();
		}
	}

	private static String whatToTry(Throwable failure) {
		if (String.valueOf(failure.getMessage()).contains("binaries")) {
			return "This build carries no PostgreSQL binaries for " + System.getProperty("os.name") + " "
					+ System.getProperty("os.arch") + ": build it on this platform (the build adds the binaries of "
					+ "the machine it runs on).";
		}
		String action = "See the server log beside the data directory, and the lines above.";
		if ("root".equals(System.getProperty("user.name"))) {
			action += " PostgreSQL refuses to run as root; as root the embedded server runs in a user namespace "
					+ "('unshare -U'), which this machine or container may not allow: run the service as an ordinary user.";
		}
		return action;
	}

	/** The end of the server log, where PostgreSQL says why it did not start. */
	private static String lastLines(Path serverLog) {
		try (RandomAccessFile file = new RandomAccessFile(serverLog.toFile(), "r")) {
			long start = Math.max(0, file.length() - 2048);
			byte[] tail = new byte[(int) (file.length() - start)];
			file.seek(start);
			file.readFully(tail);
			List<String> lines = new String(tail, StandardCharsets.UTF_8).lines().toList();
			lines = lines.subList(Math.max(0, lines.size() - 6), lines.size());
			return lines.isEmpty() ? "" : "\nThe end of " + serverLog + ":\n  " + String.join("\n  ", lines);
		}
		catch (IOException ex) {
			return "";
		}
	}

	private static void closeQuietly(DataDirectoryLock lock) {
		try {
			lock.close();
		}
		catch (IOException ex) {
			log.debug("Could not release the data directory lock", ex);
		}
	}

}
