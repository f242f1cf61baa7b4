package dev.workgraph.database;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the start-up failure analysis says the service tried to connect, read from the
 * JDBC URL, with the driver's defaults for what it leaves out.
 */
class DatabaseTargetTests {

	@Test
	void hostPortAndDatabaseComeFromTheUrl() {
		assertThat(DatabaseUnreachableFailureAnalyzer.Target.of("jdbc:postgresql://db.example:6432/work?ssl=true", "u"))
			.isEqualTo(new DatabaseUnreachableFailureAnalyzer.Target("db.example", "6432", "work", "u"));
		assertThat(DatabaseUnreachableFailureAnalyzer.Target.of("jdbc:postgresql://[::1]:5433/w", "u"))
			.isEqualTo(new DatabaseUnreachableFailureAnalyzer.Target("[::1]", "5433", "w", "u"));
		assertThat(DatabaseUnreachableFailureAnalyzer.Target.of("jdbc:postgresql://a:1,b:2/w", "u"))
			.isEqualTo(new DatabaseUnreachableFailureAnalyzer.Target("a", "1", "w", "u"));
	}

	@Test
	void whatTheUrlLeavesOutIsTheDriversDefault() {
		assertThat(DatabaseUnreachableFailureAnalyzer.Target.of("jdbc:postgresql://db/", "ann"))
			.isEqualTo(new DatabaseUnreachableFailureAnalyzer.Target("db", "5432", "ann", "ann"));
		assertThat(DatabaseUnreachableFailureAnalyzer.Target.of("jdbc:postgresql:///w", "ann"))
			.isEqualTo(new DatabaseUnreachableFailureAnalyzer.Target("localhost", "5432", "w", "ann"));
		assertThat(DatabaseUnreachableFailureAnalyzer.Target.of("not a url", "ann").host()).isEqualTo("HOST");
	}

}
