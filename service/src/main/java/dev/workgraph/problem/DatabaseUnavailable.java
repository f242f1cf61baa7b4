package dev.workgraph.problem;

import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.transaction.TransactionSystemException;

/**
 * Recognises failures that mean "PostgreSQL cannot be reached right now" (the pool timed
 * out waiting for a connection, the server restarted or shut down, a connection broke
 * mid-query) as opposed to a bug. Those answer 503 with Retry-After, so workers back off
 * and retry instead of treating the item as broken.
 */
final class DatabaseUnavailable {

	private DatabaseUnavailable() {
	}

	static boolean isCauseOf(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			// A connection that breaks mid-transaction fails the rollback too
			// ("Connection is closed"), and that exception replaces the one saying why.
			// Spring keeps the original as the application exception, except after a
			// failed commit: then the rollback failing in JDBC is all that is left.
			if (cause instanceof TransactionSystemException rollbackFailed) {
				Throwable original = rollbackFailed.getApplicationException();
				if ((original != null) ? isCauseOf(original) : rollbackFailed.getCause() instanceof SQLException) {
					return true;
				}
			}
			if (cause instanceof CannotGetJdbcConnectionException || cause instanceof QueryTimeoutException
					|| cause instanceof SQLTransientConnectionException
					|| cause instanceof SQLNonTransientConnectionException || cause instanceof ConnectException
					|| cause instanceof SocketException || cause instanceof SocketTimeoutException) {
				return true;
			}
			if (cause instanceof SQLException sql && sql.getSQLState() != null
					&& isUnavailableState(sql.getSQLState())) {
				return true;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

	/**
	 * Whether every pooled connection was busy for the whole pool timeout while
	 * PostgreSQL itself answered: the pool's timeout carries the last connection failure
	 * as its cause when there was one, and none when the connections were merely all in
	 * use. Worth telling apart in the answer: the remedy is less load (or a larger pool),
	 * not waiting for the database to come back.
	 */
	static boolean isPoolExhausted(Throwable failure) {
		for (Throwable cause = failure; cause != null && cause.getCause() != cause; cause = cause.getCause()) {
			if (cause instanceof SQLTransientConnectionException timeout) {
				return timeout.getCause() == null && timeout.getSQLState() == null;
			}
		}
		return false;
	}

	/**
	 * 08: connection exceptions; 53: insufficient resources (too many connections);
	 * 57P01-57P05: administrator or crash shutdown, cannot connect now, idle session
	 * timeout; 57014: query cancelled (statement timeout).
	 */
	private static boolean isUnavailableState(String state) {
		return state.startsWith("08") || state.startsWith("53") || state.startsWith("57P") || state.equals("57014");
	}

}
