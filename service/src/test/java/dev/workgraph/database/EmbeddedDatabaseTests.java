package dev.workgraph.database;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static dev.workgraph.database.EmbeddedService.api;
import static dev.workgraph.database.EmbeddedService.run;
import static dev.workgraph.database.EmbeddedService.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The service with no database configured: it runs a real PostgreSQL of its own, whose
 * data outlives the service. Each test starts the whole application
 * ({@link EmbeddedService}).
 */
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedDatabaseTests {

	@TempDir
	Path workDir;

	@Test
	void startsOnAnEmptyDirectoryAndKeepsItsDataAcrossRestarts(CapturedOutput output) {
		Path dataDir = this.workDir.resolve("postgres");
		String itemId;
		try (ConfigurableApplicationContext first = start(dataDir)) {
			assertThat(output.getOut()).contains("Embedded PostgreSQL 17.", "created and started on 127.0.0.1:",
					"Its data is in " + dataDir, "server log: " + dataDir + ".log",
					"set SPRING_DATASOURCE_URL=jdbc:postgresql://");
			assertThat(dataDir.resolve("PG_VERSION")).exists();
			assertThat(first.getBean(JdbcConnectionDetails.class).getJdbcUrl())
				.startsWith("jdbc:postgresql://127.0.0.1:")
				.endsWith("/workgraph");
			Api.Response created = api(first).post("/items", Map.of("title", "kept across restarts"));
			assertThat(created.status()).as(created.toString()).isEqualTo(201);
			itemId = created.body().path("id").asString();
			assertThat(api(first).get("/actuator/health").body().path("status").asString()).isEqualTo("UP");
		}
		assertThat(output.getOut()).contains("Embedded PostgreSQL stopped; its data stays in " + dataDir);
		assertThat(dataDir.resolve("postmaster.pid")).as("the server stopped with the service").doesNotExist();

		try (ConfigurableApplicationContext second = start(dataDir)) {
			assertThat(output.getOut()).contains("Embedded PostgreSQL 17.", " started on 127.0.0.1:");
			Api.Response item = api(second).get("/items/" + itemId);
			assertThat(item.status()).as(item.toString()).isEqualTo(200);
			assertThat(item.body().path("title").asString()).isEqualTo("kept across restarts");
		}
	}

	@Test
	void refusesADataDirectoryThatAnotherRunningServiceUses(CapturedOutput output) {
		Path dataDir = this.workDir.resolve("postgres");
		try (ConfigurableApplicationContext first = start(dataDir)) {
			assertThat(failureToStart(() -> start(dataDir))).isNotNull();
			assertThat(output.getOut()).contains("is in use by another Work Graph service that is running",
					"WORKGRAPH_EMBEDDED_DATABASE_DATA_DIR");
			assertThat(api(first).get("/actuator/health").status()).as("the first service is unharmed").isEqualTo(200);
		}
	}

	@Test
	void aConfiguredDatabaseUrlTurnsItOff() {
		Path dataDir = this.workDir.resolve("postgres");
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		try (ConfigurableApplicationContext service = run("--spring.datasource.url=" + database.jdbcUrl(),
				"--spring.datasource.username=" + database.username(),
				"--spring.datasource.password=" + database.password(),
				"--workgraph.embedded-database.data-dir=" + dataDir)) {
			assertThat(service.getBeansOfType(EmbeddedPostgresServer.class)).isEmpty();
			assertThat(service.getBean(JdbcConnectionDetails.class).getJdbcUrl()).isEqualTo(database.jdbcUrl());
			assertThat(dataDir).doesNotExist();
		}
	}

	@Test
	void turnedOffWithoutADatabaseUrlTheServiceDoesNotStart(CapturedOutput output) {
		Path dataDir = this.workDir.resolve("postgres");
		assertThatThrownBy(() -> run("--spring.datasource.url=", "--workgraph.embedded-database.enabled=false",
				"--workgraph.embedded-database.data-dir=" + dataDir))
			.isInstanceOf(RuntimeException.class);
		assertThat(output.getOut()).contains("Failed to configure a DataSource");
		assertThat(dataDir).doesNotExist();
	}

	@Test
	void aPortInUseIsReportedBeforeAnythingStarts(CapturedOutput output) throws IOException {
		try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			assertThat(failureToStart(() -> start(this.workDir.resolve("postgres"),
					"--workgraph.embedded-database.port=" + taken.getLocalPort())))
				.isNotNull();
			assertThat(output.getOut()).contains("port " + taken.getLocalPort(), "is in use",
					"WORKGRAPH_EMBEDDED_DATABASE_PORT");
		}
	}

	@Test
	void aDirectoryWithFilesButNoClusterIsLeftAlone(CapturedOutput output) throws IOException {
		Path dataDir = Files.createDirectories(this.workDir.resolve("postgres"));
		Path precious = Files.writeString(dataDir.resolve("notes.txt"), "not a database");
		assertThat(failureToStart(() -> start(dataDir))).isNotNull();
		assertThat(output.getOut()).contains(dataDir + " is not empty but holds no PostgreSQL cluster");
		assertThat(precious).hasContent("not a database");
	}

	/**
	 * Why the embedded database did not start, found among the start-up failure's causes.
	 */
	private static EmbeddedDatabaseUnavailable failureToStart(Runnable start) {
		Throwable failure = catchThrowable(start::run);
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof EmbeddedDatabaseUnavailable unavailable) {
				return unavailable;
			}
		}
		throw new AssertionError("Expected the embedded database to fail, but got: " + failure, failure);
	}

}
