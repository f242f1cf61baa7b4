package dev.workgraph.database;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.workgraph.WorkGraphApplication;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a user sees when the configured database cannot be used: the service is started as
 * its own process, with the classpath it runs with (no test configuration), and its whole
 * output is checked: the failure analysis with the fix for this failure, and nothing of
 * the bean chain, Flyway's SQL-state block or a stack trace around it.
 */
class StartupFailureOutputTests {

	@TempDir
	Path directory;

	@Test
	void aRefusedConnectionSaysToStartTheServerOrFixTheUrl() throws Exception {
		String output = start("jdbc:postgresql://127.0.0.1:1/workgraph", "postgres", "");
		assertOnlyTheAnalysis(output);
		assertThat(output).contains("Could not connect to PostgreSQL at jdbc:postgresql://127.0.0.1:1/workgraph")
			.contains("connection refused")
			.contains("Start PostgreSQL")
			.contains("127.0.0.1:1")
			.doesNotContain("createdb")
			.doesNotContain("createuser");
	}

	@Test
	void aMissingRoleSaysHowToCreateIt() throws Exception {
		Server server = Server.ofThisRun();
		// With password authentication PostgreSQL answers "password authentication
		// failed" for a role that does not exist, on purpose: only a server that trusts
		// (a local or embedded one) says which role is missing.
		Assumptions.assumeFalse(server.source().startsWith("docker"),
				"the container's server authenticates by password and does not say which role is missing");
		String output = start(server.url("postgres"), "no_such_role_wg", "");
		assertOnlyTheAnalysis(output);
		assertThat(output).contains("role \"no_such_role_wg\" does not exist")
			.contains("createuser -h " + server.host() + " -p " + server.port())
			.contains("no_such_role_wg")
			.doesNotContain("createdb")
			.doesNotContain("Start PostgreSQL");
	}

	@Test
	void aMissingDatabaseSaysHowToCreateIt() throws Exception {
		Server server = Server.ofThisRun();
		String output = start(server.url("no_such_database_wg"), server.user(), server.password());
		assertOnlyTheAnalysis(output);
		assertThat(output).contains("database \"no_such_database_wg\" does not exist")
			.contains("createdb -h " + server.host() + " -p " + server.port() + " -U " + server.user()
					+ " no_such_database_wg")
			.doesNotContain("createuser")
			.doesNotContain("Start PostgreSQL");
	}

	@Test
	void anUnknownHostSaysToCheckTheUrl() throws Exception {
		String output = start("jdbc:postgresql://no-such-host.invalid:5432/workgraph", "postgres", "");
		assertOnlyTheAnalysis(output);
		assertThat(output).contains("unknown host")
			.contains("Correct the host in SPRING_DATASOURCE_URL")
			.doesNotContain("createdb")
			.doesNotContain("createuser");
	}

	private static void assertOnlyTheAnalysis(String output) {
		assertThat(output).contains("APPLICATION FAILED TO START").contains("Description:").contains("Action:");
		assertThat(output).as("no bean chain")
			.doesNotContain("Error creating bean")
			.doesNotContain("UnsatisfiedDependencyException")
			.doesNotContain("cancelling refresh attempt");
		assertThat(output).as("no Flyway SQL-state block")
			.doesNotContain("SQL State")
			.doesNotContain("Error Code")
			.doesNotContain("FlywaySqlException");
		assertThat(output).as("no stack trace").doesNotContain("\tat ").doesNotContain("Caused by");
		assertThat(output).as("no pool error").doesNotContain("Exception during pool initialization");
		List<String> lines = output.lines().filter((line) -> !line.isBlank()).toList();
		List<String> logLines = lines.stream().filter((line) -> line.matches("^\\d{4}-\\d\\d-\\d\\dT.*")).toList();
		assertThat(logLines.stream().filter((line) -> line.contains(" WARN ") || line.contains(" ERROR ")))
			.as("warnings and errors besides the analysis: " + output)
			.allMatch((line) -> line.contains("LoggingFailureAnalysisReporter"));
	}

	/** Starts the service as a process of its own and returns all it printed. */
	private String start(String url, String user, String password) throws IOException, InterruptedException {
		String classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.contains("test-classes"))
			.collect(Collectors.joining(File.pathSeparator));
		List<String> command = new ArrayList<>();
		command.add(ProcessHandle.current().info().command().orElse("java"));
		command.addAll(
				List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", classpath, WorkGraphApplication.class.getName(),
						"--server.port=0", "--spring.datasource.url=" + url, "--spring.datasource.username=" + user,
						"--spring.datasource.password=" + password, "--workgraph.lease.reaper-enabled=false"));
		Path log = this.directory.resolve("output.log");
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.directory(this.directory.toFile());
		builder.environment().keySet().removeIf((name) -> name.startsWith("SPRING_") || name.startsWith("WORKGRAPH_"));
		Process process = builder.start();
		try {
			assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the service stops by itself").isTrue();
		}
		finally {
			process.destroyForcibly();
		}
		assertThat(process.exitValue()).isNotZero();
		return Files.readString(log, StandardCharsets.UTF_8);
	}

	/**
	 * The server this test run uses (Docker, local or embedded), so that "missing role"
	 * and "missing database" come from a server that is really there.
	 */
	private record Server(String host, int port, String user, String password, String source) {

		static Server ofThisRun() {
			TestDatabase.Coordinates coordinates = TestDatabase.coordinates();
			URI server = URI.create(coordinates.jdbcUrl().substring("jdbc:".length()));
			return new Server(server.getHost(), server.getPort(), coordinates.username(),
					(coordinates.password() != null) ? coordinates.password() : "", coordinates.source());
		}

		String url(String database) {
			return "jdbc:postgresql://" + this.host + ":" + this.port + "/" + database;
		}

	}

}
