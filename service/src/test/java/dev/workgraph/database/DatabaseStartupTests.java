package dev.workgraph.database;

import dev.workgraph.WorkGraphApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Start-up against a database that cannot be reached: the service stops with one
 * paragraph saying what it tried and how to fix it, while the connection pool's own
 * warnings stay switched on for the running service (a leak or a starved pool must reach
 * the log).
 */
@ExtendWith(OutputCaptureExtension.class)
class DatabaseStartupTests {

	private static final String NOWHERE = "jdbc:postgresql://127.0.0.1:1/workgraph";

	@Test
	void anUnreachableDatabaseStopsStartUpWithOneExplanation(CapturedOutput output) {
		assertThatException()
			.isThrownBy(() -> new SpringApplicationBuilder(WorkGraphApplication.class).run("--server.port=0",
					"--spring.datasource.url=" + NOWHERE, "--spring.datasource.username=someone",
					"--workgraph.lease.reaper-enabled=false", "--workgraph.lease.vacuum-interval=0s"));
		assertThat(output.getAll()).contains("APPLICATION FAILED TO START")
			.contains("Could not connect to PostgreSQL at " + NOWHERE + " as user 'someone': ")
			.contains("refused")
			.contains("SPRING_DATASOURCE_URL")
			.doesNotContain("HikariPool")
			.doesNotContain("Application run failed");
		assertThat(LoggerFactory.getLogger("com.zaxxer.hikari.pool.HikariPool").isWarnEnabled())
			.as("the pool's warnings are logged")
			.isTrue();
	}

}
