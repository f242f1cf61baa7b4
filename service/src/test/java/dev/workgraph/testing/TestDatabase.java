package dev.workgraph.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The PostgreSQL database of this test run: one per JVM, fresh, never shared with another
 * run.
 *
 * <p>
 * With a Docker engine, Testcontainers starts PostgreSQL 17. Without one (our 2-core
 * machines and their CI), a uniquely named database is created on the local server and
 * dropped when the JVM exits. {@code WORKGRAPH_TEST_DATABASE=docker|local} forces a
 * choice; the local server is found with {@code WORKGRAPH_TEST_PGHOST} (127.0.0.1),
 * {@code WORKGRAPH_TEST_PGPORT} (5432), {@code WORKGRAPH_TEST_PGUSER} (postgres) and
 * {@code WORKGRAPH_TEST_PGPASSWORD} (empty).
 */
public final class TestDatabase {

	private static Coordinates coordinates;

	private TestDatabase() {
	}

	public static synchronized Coordinates coordinates() {
		if (coordinates == null) {
			coordinates = useDocker() ? startContainer() : createLocalDatabase();
		}
		return coordinates;
	}

	private static boolean useDocker() {
		String choice = System.getenv().getOrDefault("WORKGRAPH_TEST_DATABASE", "auto").toLowerCase(Locale.ROOT);
		return switch (choice) {
			case "docker" -> true;
			case "local" -> false;
			default -> DockerClientFactory.instance().isDockerAvailable();
		};
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
		try (Connection connection = DriverManager.getConnection(server + "postgres", user, password);
				Statement statement = connection.createStatement()) {
			statement.execute("create database " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(
					"Tests need PostgreSQL: no Docker engine was found, and the local server at " + host + ":" + port
							+ " (user " + user + ") refused: " + ex.getMessage()
							+ ". Start it (see README, 'How tests find a database') or set WORKGRAPH_TEST_PG*.",
					ex);
		}
		Runtime.getRuntime().addShutdownHook(new Thread(() -> dropLocalDatabase(server, user, password, name)));
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

	private static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value == null || value.isBlank()) ? fallback : value;
	}

	/**
	 * How to reach the test database; {@code source} is {@code docker} or {@code local}.
	 */
	public record Coordinates(String jdbcUrl, String username, String password, String source) {
	}

}
