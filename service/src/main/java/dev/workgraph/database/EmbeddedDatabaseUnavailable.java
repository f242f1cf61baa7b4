package dev.workgraph.database;

/**
 * The embedded PostgreSQL could not be started; says what went wrong and what the user
 * can do about it (see {@link EmbeddedDatabaseFailureAnalyzer}).
 */
class EmbeddedDatabaseUnavailable extends RuntimeException {

	private final String action;

	EmbeddedDatabaseUnavailable(String description, String action, Throwable cause) {
		super(description, cause);
		this.action = action;
	}

	String action() {
		return this.action;
	}

}
