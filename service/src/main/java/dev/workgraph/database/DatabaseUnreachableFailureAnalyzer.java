package dev.workgraph.database;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URLDecoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.Environment;

/**
 * When the service cannot use the configured PostgreSQL at start-up, says so in one
 * paragraph (what it tried, what went wrong) and names the fix for that failure: start
 * the server, correct the URL, create the database, create the role, fix the password.
 * (The application context's own warning about the same failure is switched off in
 * application.yml, so the analysis is all that is printed.)
 */
class DatabaseUnreachableFailureAnalyzer implements FailureAnalyzer {

	private static final String EMBEDDED = " Without SPRING_DATASOURCE_URL the service runs an embedded PostgreSQL "
			+ "of its own.";

	private final Environment environment;

	DatabaseUnreachableFailureAnalyzer(Environment environment) {
		this.environment = environment;
	}

	@Override
	public FailureAnalysis analyze(Throwable failure) {
		Failure found = failure(failure);
		if (found == null) {
			return null;
		}
		String url = this.environment.getProperty("spring.datasource.url", "(no spring.datasource.url)");
		String user = this.environment.getProperty("spring.datasource.username", "(none)");
		Target target = Target.of(url, user);
		return new FailureAnalysis(
				"Could not connect to PostgreSQL at " + url + " as user '" + user + "': " + found.reason(),
				found.kind().action(target) + EMBEDDED, null);
	}

	/**
	 * What went wrong, or null when the failure is not about using the database. The
	 * driver wraps a network failure in an SQLException of its own (08001, "The
	 * connection attempt failed"), so the network cause, deeper down, is looked for
	 * first.
	 */
	private static Failure failure(Throwable failure) {
		for (Throwable cause = failure; cause != null && cause.getCause() != cause; cause = cause.getCause()) {
			if (cause instanceof UnknownHostException) {
				return new Failure(Kind.UNKNOWN_HOST, "unknown host " + cause.getMessage());
			}
			if (cause instanceof ConnectException) {
				return new Failure(Kind.REFUSED, "connection refused (nothing listens on that host and port)");
			}
			if (cause instanceof SocketTimeoutException) {
				return new Failure(Kind.REFUSED, "the connection timed out");
			}
		}
		for (Throwable cause = failure; cause != null && cause.getCause() != cause; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && sql.getSQLState() != null) {
				Kind kind = Kind.of(sql);
				if (kind != null) {
					return new Failure(kind, sql.getMessage());
				}
			}
		}
		return null;
	}

	private record Failure(Kind kind, String reason) {
	}

	/** Where the service tried to connect, as the fixes need it. */
	record Target(String host, String port, String database, String user) {

		/**
		 * {@code jdbc:postgresql://host:port/database?…}; the first host of several, the
		 * driver's defaults for what is left out.
		 */
		private static final Pattern URL = Pattern
			.compile("jdbc:postgresql://(\\[[^]]*]|[^/:,?]*)(?::(\\d+))?[^/?]*(?:/([^?]*))?.*");

		static Target of(String url, String user) {
			Matcher parts = URL.matcher(url);
			if (!parts.matches()) {
				return new Target("HOST", "5432", "DATABASE", user);
			}
			String host = parts.group(1).isEmpty() ? "localhost" : parts.group(1);
			String port = (parts.group(2) != null) ? parts.group(2) : "5432";
			String database = (parts.group(3) != null && !parts.group(3).isEmpty())
					? URLDecoder.decode(parts.group(3), StandardCharsets.UTF_8) : user;
			return new Target(host, port, database, user);
		}

		String address() {
			return this.host + ":" + this.port;
		}

	}

	/** Each failure with its fix. */
	enum Kind {

		REFUSED {
			@Override
			String action(Target target) {
				return "Start PostgreSQL on " + target.address() + " (or wait until it accepts connections), or "
						+ "correct the host and port in SPRING_DATASOURCE_URL.";
			}
		},

		UNKNOWN_HOST {
			@Override
			String action(Target target) {
				return "Correct the host in SPRING_DATASOURCE_URL: '" + target.host() + "' does not resolve.";
			}
		},

		NO_DATABASE {
			@Override
			String action(Target target) {
				return "Create the database: createdb -h " + target.host() + " -p " + target.port() + " -U "
						+ target.user() + " " + target.database() + " (or name an existing one in "
						+ "SPRING_DATASOURCE_URL). The service creates its tables in it.";
			}
		},

		NO_ROLE {
			@Override
			String action(Target target) {
				return "Create the role: createuser -h " + target.host() + " -p " + target.port()
						+ " -U postgres --pwprompt " + target.user() + " (as a superuser), and give it a database "
						+ "it owns, or set SPRING_DATASOURCE_USERNAME to an existing role.";
			}
		},

		NOT_ALLOWED {
			@Override
			String action(Target target) {
				return "Allow this user and host in the server's pg_hba.conf (then reload PostgreSQL), or connect "
						+ "as a user that is allowed.";
			}
		},

		WRONG_PASSWORD {
			@Override
			String action(Target target) {
				return "Set SPRING_DATASOURCE_PASSWORD to the password of role '" + target.user() + "'.";
			}
		},

		SERVER_BUSY {
			@Override
			String action(Target target) {
				return "The server at " + target.address() + " is starting, shutting down or out of connection "
						+ "slots: start the service again once it accepts connections (or raise max_connections).";
			}
		};

		abstract String action(Target target);

		/**
		 * 3D000 no such database; 28000 no such role or no pg_hba.conf entry; 28P01 wrong
		 * password; 08 connection failures; 57P0x and 53300 a server that cannot take the
		 * connection now.
		 */
		static Kind of(SQLException sql) {
			String state = sql.getSQLState();
			String message = String.valueOf(sql.getMessage());
			return switch (state) {
				case "3D000" -> NO_DATABASE;
				case "28000" -> message.contains("pg_hba.conf") ? NOT_ALLOWED : NO_ROLE;
				case "28P01" -> WRONG_PASSWORD;
				case "53300" -> SERVER_BUSY;
				default -> state.startsWith("57P0") ? SERVER_BUSY : state.startsWith("08") ? REFUSED : null;
			};
		}

	}

}
