package dev.workgraph.problem;

import java.sql.SQLException;

import org.springframework.dao.QueryTimeoutException;

/**
 * Whether PostgreSQL cancelled a statement that was still running (SQLSTATE 57014): when
 * it ran past the service's query timeout, pgjdbc asked PostgreSQL to cancel it, so it
 * does not run on after the service has given up; an administrator's
 * {@code pg_cancel_backend} ends it the same way. The connection stays usable and the
 * transaction rolled back.
 */
public final class StatementCancelled {

	private StatementCancelled() {
	}

	public static boolean isCauseOf(Throwable failure) {
		for (Throwable cause = failure; cause != null && cause.getCause() != cause; cause = cause.getCause()) {
			if (cause instanceof QueryTimeoutException
					|| (cause instanceof SQLException sql && "57014".equals(sql.getSQLState()))) {
				return true;
			}
		}
		return false;
	}

}
