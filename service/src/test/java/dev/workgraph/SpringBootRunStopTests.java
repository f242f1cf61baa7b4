package dev.workgraph;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.workgraph.testing.RepositoryRoot;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./mvnw spring-boot:run} reports {@code BUILD FAILURE} unless the service exits
 * with 0 or 130. A Ctrl-C in the terminal reaches the service too, which exits with 130;
 * but the service is stopped with SIGTERM when the Ctrl-C reached Maven alone (the plugin
 * sends it after 5 s), or when it is sent SIGTERM itself, and the JVM then exits with
 * 143. The service runs here as the plugin runs it (its own JVM, with the system
 * properties that {@code service/pom.xml} gives the plugin) and is sent SIGTERM: it shuts
 * down gracefully and exits with a status the plugin counts as success.
 */
class SpringBootRunStopTests {

	/** What the plugin counts as success (its JavaProcessExecutor). */
	private static final List<Integer> SUCCESS = List.of(0, 130);

	private static final Duration START_TIMEOUT = Duration.ofMinutes(4);

	@TempDir
	Path directory;

	@Test
	void sigtermEndsTheRunWithAStatusThePluginCountsAsSuccess() throws Exception {
		Path log = this.directory.resolve("output.log");
		Process service = startAsThePluginDoes(log);
		try {
			awaitStarted(service, log);
			service.destroy();
			assertThat(service.waitFor(2, TimeUnit.MINUTES)).as("stopped").isTrue();
			String output = Files.readString(log, StandardCharsets.UTF_8);
			assertThat(output).contains("Graceful shutdown complete");
			assertThat(service.exitValue()).as("exit status after SIGTERM\n" + output).isIn(SUCCESS);
		}
		finally {
			service.destroyForcibly();
		}
	}

	/**
	 * The service in a JVM of its own with the main class and the system properties of
	 * the plugin's configuration, on this run's database.
	 */
	private Process startAsThePluginDoes(Path log) throws IOException {
		String classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.contains("test-classes"))
			.collect(Collectors.joining(File.pathSeparator));
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
				"-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", classpath));
		command.addAll(pluginSystemProperties());
		command.addAll(List.of(WorkGraphApplication.class.getName(), "--server.port=0", "--spring.main.banner-mode=off",
				"--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=" + database.username(),
				"--spring.datasource.password=" + database.password(), "--workgraph.lease.reaper-enabled=false",
				"--workgraph.security.enabled=false"));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.directory(this.directory.toFile());
		builder.environment().keySet().removeIf((name) -> name.startsWith("SPRING_") || name.startsWith("WORKGRAPH_"));
		return builder.start();
	}

	/**
	 * {@code -Dname=value} of each of the Spring Boot plugin's
	 * {@code systemPropertyVariables} in {@code service/pom.xml}.
	 */
	private static List<String> pluginSystemProperties() throws IOException {
		String pom = Files.readString(RepositoryRoot.path().resolve("service/pom.xml"), StandardCharsets.UTF_8);
		String plugin = pom.substring(pom.indexOf("<artifactId>spring-boot-maven-plugin</artifactId>"));
		Matcher block = Pattern.compile("<systemPropertyVariables>(.*?)</systemPropertyVariables>", Pattern.DOTALL)
			.matcher(plugin.substring(0, plugin.indexOf("</plugin>")));
		List<String> properties = new ArrayList<>();
		if (block.find()) {
			Matcher property = Pattern.compile("<([\\w.-]+)>([^<]*)</\\1>").matcher(block.group(1));
			while (property.find()) {
				properties.add("-D" + property.group(1) + "=" + property.group(2).strip());
			}
		}
		return properties;
	}

	private static void awaitStarted(Process service, Path log) throws Exception {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			String output = Files.readString(log, StandardCharsets.UTF_8);
			assertThat(service.isAlive()).as("running: " + output).isTrue();
			if (output.contains("Started WorkGraphApplication")) {
				return;
			}
			Thread.sleep(200);
		}
		throw new AssertionError("Not started within " + START_TIMEOUT + ":\n" + Files.readString(log));
	}

}
