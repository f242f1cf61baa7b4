package dev.workgraph.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * An empty database of its own on the test run's server, for what must start from nothing
 * (a service instance without tokens yet, a table's statistics that no other test
 * touches); dropped on close.
 */
public final class FreshDatabase implements AutoCloseable {

	private final TestDatabase.Coordinates server;

	private final String name;

	private final String jdbcUrl;

	private FreshDatabase(TestDatabase.Coordinates server, String name, String jdbcUrl) {
		this.server = server;
		this.name = name;
		this.jdbcUrl = jdbcUrl;
	}

	public static FreshDatabase create() {
		TestDatabase.Coordinates server = TestDatabase.coordinates();
		String name = "fresh_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
		execute(server, "create database " + name);
		return new FreshDatabase(server, name, withDatabase(server.jdbcUrl(), name));
	}

	public String jdbcUrl() {
		return this.jdbcUrl;
	}

	public String username() {
		return this.server.username();
	}

	public String password() {
		return this.server.password();
	}

	@Override
	public void close() {
		execute(this.server, "drop database if exists " + this.name + " with (force)");
	}

	/** The same URL with its database name replaced, query parameters kept. */
	private static String withDatabase(String jdbcUrl, String database) {
		int query = jdbcUrl.indexOf('?');
		String path = (query < 0) ? jdbcUrl : jdbcUrl.substring(0, query);
		String parameters = (query < 0) ? "" : jdbcUrl.substring(query);
		return path.substring(0, path.lastIndexOf('/') + 1) + database + parameters;
	}

	private static void execute(TestDatabase.Coordinates server, String sql) {
		try (Connection connection = DriverManager.getConnection(server.jdbcUrl(), server.username(),
				server.password()); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + ": " + ex.getMessage(), ex);
		}
	}

}
