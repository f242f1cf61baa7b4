package dev.workgraph.database;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a failed start of the embedded PostgreSQL as one paragraph and what to do,
 * instead of the stack traces of the bean creation that needed it.
 */
class EmbeddedDatabaseFailureAnalyzer extends AbstractFailureAnalyzer<EmbeddedDatabaseUnavailable> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, EmbeddedDatabaseUnavailable cause) {
		return new FailureAnalysis(cause.getMessage(), cause.action() + " " + EmbeddedPostgresServer.USE_A_REAL_SERVER,
				cause);
	}

}
