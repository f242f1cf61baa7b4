package dev.workgraph.database;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.Environment;

/**
 * When the service cannot reach PostgreSQL at start-up, says so in one line (what it
 * tried, what went wrong, how to fix it) instead of the stack traces of every layer
 * between Flyway and the socket.
 */
class DatabaseUnreachableFailureAnalyzer implements FailureAnalyzer {

	private final Environment environment;

	DatabaseUnreachableFailureAnalyzer(Environment environment) {
		this.environment = environment;
	}

	@Override
	public FailureAnalysis analyze(Throwable failure) {
		String reason = reason(failure);
		if (reason == null) {
			return null;
		}
		String url = this.environment.getProperty("spring.datasource.url", "(no spring.datasource.url)");
		String user = this.environment.getProperty("spring.datasource.username", "(none)");
		return new FailureAnalysis("Could not connect to PostgreSQL at " + url + " as user '" + user + "': " + reason,
				"Check that PostgreSQL runs there and accepts this user ('docker compose up -d --wait postgres' "
						+ "starts one), or correct SPRING_DATASOURCE_URL, SPRING_DATASOURCE_USERNAME and "
						+ "SPRING_DATASOURCE_PASSWORD. Without SPRING_DATASOURCE_URL the service runs an embedded "
						+ "PostgreSQL of its own.",
				null);
	}

	/**
	 * Why the connection failed, or null when the failure is not about reaching the
	 * database.
	 */
	private static String reason(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof ConnectException || cause instanceof UnknownHostException) {
				return cause.getClass() == UnknownHostException.class ? "unknown host " + cause.getMessage()
						: "connection refused (is the server running and listening on that port?)";
			}
			if (cause instanceof SQLException sql && sql.getSQLState() != null) {
				String state = sql.getSQLState();
				if (state.startsWith("08") || state.equals("28P01") || state.equals("28000") || state.equals("3D000")
						|| state.startsWith("57P0") || state.equals("53300")) {
					return sql.getMessage();
				}
			}
		}
		return null;
	}

}
