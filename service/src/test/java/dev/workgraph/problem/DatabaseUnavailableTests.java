package dev.workgraph.problem;

import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found by the chaos harness (PostgreSQL restarted under load): a connection that breaks
 * mid-transaction makes the rollback fail as well, and the rollback's exception hides the
 * one that says the database went away. That must still be a 503, not a 500.
 */
class DatabaseUnavailableTests {

	@Test
	void failedRollbackAfterTheConnectionBrokeIsUnavailability() {
		TransactionSystemException rollbackFailed = new TransactionSystemException("JDBC rollback failed",
				new SQLException("Connection is closed"));
		rollbackFailed
			.initApplicationException(new SQLException("terminating connection due to administrator command", "57P01"));
		assertThat(DatabaseUnavailable.isCauseOf(rollbackFailed)).isTrue();
	}

	@Test
	void failedRollbackAfterAFailedCommitIsUnavailability() {
		// Spring logs the commit's exception and throws only the rollback's.
		TransactionSystemException rollbackFailed = new TransactionSystemException("JDBC rollback failed",
				new SQLException("Connection is closed"));
		assertThat(DatabaseUnavailable.isCauseOf(rollbackFailed)).isTrue();
	}

	@Test
	void failedRollbackAfterABugIsNotUnavailability() {
		TransactionSystemException rollbackFailed = new TransactionSystemException("JDBC rollback failed",
				new SQLException("Connection is closed"));
		rollbackFailed.initApplicationException(new IllegalStateException("a bug"));
		assertThat(DatabaseUnavailable.isCauseOf(rollbackFailed)).isFalse();
	}

	@Test
	void aPoolTimeoutWithoutAConnectionFailureIsExhaustion() {
		SQLTransientConnectionException timeout = new SQLTransientConnectionException(
				"workgraph - Connection is not available, request timed out after 3000ms");
		RuntimeException failure = new CannotGetJdbcConnectionException("Failed to obtain JDBC Connection", timeout);
		assertThat(DatabaseUnavailable.isPoolExhausted(failure)).isTrue();
		assertThat(DatabaseUnavailable.isCauseOf(failure)).isTrue();
	}

	@Test
	void aPoolTimeoutCausedByConnectionFailuresIsUnavailabilityNotExhaustion() {
		SQLException refused = new SQLException("Connection to 127.0.0.1:5432 refused", "08001");
		SQLTransientConnectionException timeout = new SQLTransientConnectionException(
				"workgraph - Connection is not available, request timed out after 3000ms", "08001", refused);
		RuntimeException failure = new CannotGetJdbcConnectionException("Failed to obtain JDBC Connection", timeout);
		assertThat(DatabaseUnavailable.isPoolExhausted(failure)).isFalse();
		assertThat(DatabaseUnavailable.isCauseOf(failure)).isTrue();
	}

	@Test
	void aCancelledStatementIsToldApartFromALostConnection() {
		RuntimeException cancelled = new QueryTimeoutException("PreparedStatementCallback",
				new SQLException("ERROR: canceling statement due to user request", "57014"));
		assertThat(StatementCancelled.isCauseOf(cancelled)).isTrue();
		assertThat(DatabaseUnavailable.isCauseOf(cancelled)).isTrue();

		// The socket timeout: the driver gave up on a database that did not answer at
		// all.
		SQLException lost = new SQLException("An I/O error occurred while sending to the backend.", "08006",
				new SocketTimeoutException("Read timed out"));
		RuntimeException unanswered = new DataAccessResourceFailureException("PreparedStatementCallback", lost);
		assertThat(StatementCancelled.isCauseOf(unanswered)).isFalse();
		assertThat(DatabaseUnavailable.isCauseOf(unanswered)).isTrue();
	}

}
