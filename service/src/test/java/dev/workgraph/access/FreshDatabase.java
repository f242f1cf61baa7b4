package dev.workgraph.access;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import dev.workgraph.testing.TestDatabase;

/**
 * An empty database of its own on the test run's server, for a service instance that must
 * start from nothing (no tokens yet); dropped on close.
 */
final class FreshDatabase implements AutoCloseable {

	private final TestDatabase.Coordinates server;

	private final String name;

	private final String jdbcUrl;

	private FreshDatabase(TestDatabase.Coordinates server, String name, String jdbcUrl) {
		this.server = server;
		this.name = name;
		this.jdbcUrl = jdbcUrl;
	}

	static FreshDatabase create() {
		TestDatabase.Coordinates server = TestDatabase.coordinates();
		String name = "hostile_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
		execute(server, "create database " + name);
		return new FreshDatabase(server, name, withDatabase(server.jdbcUrl(), name));
	}

	String jdbcUrl() {
		return this.jdbcUrl;
	}

	String username() {
		return this.server.username();
	}

	String password() {
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
