package dev.workgraph.launcher;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged jar, started as the README says ({@code java -jar …}) with a Java older
 * than 25, as on a machine whose default {@code java} is the 17 that runs Maven: it finds
 * the Java 25 that the build uses and runs the service with it, passing on options,
 * arguments, environment and a stop; without one it says what to install, in one line.
 * Runs after {@code package} ({@code ./mvnw verify}).
 */
class PackagedJarIT {

	private static final Duration START_TIMEOUT = Duration.ofMinutes(5);

	@TempDir
	Path directory;

	@Test
	void anOlderJavaRunsTheServiceOnTheJava25ItFindsAndPassesOnItsStop() throws Exception {
		int port = freePort();
		Path dataDir = this.directory.resolve("postgres");
		ProcessBuilder builder = new ProcessBuilder(olderJava().toString(),
				"-Dworkgraph.embedded-database.data-dir=" + dataDir, "-jar", jar().toString(),
				"--spring.application.name=relaunched-service", "--workgraph.security.enabled=false")
			.redirectErrorStream(true)
			.redirectOutput(this.directory.resolve("output.log").toFile())
			.directory(this.directory.toFile());
		builder.environment().put("SERVER_PORT", Integer.toString(port));
		Process launcher = builder.start();
		try {
			awaitHealthy(launcher, port);
			List<ProcessHandle> service = launcher.descendants()
				.filter((process) -> process.info().command().map((command) -> command.endsWith("java")).orElse(false))
				.toList();
			assertThat(service).as("the service's JVM").hasSize(1);
			assertThat(output().lines().findFirst()).get()
				.asString()
				.contains("Work Graph needs Java 25 or newer", "running it with Java 25");
			assertThat(output()).as("arguments passed on").contains("[relaunched-service]");
			assertThat(dataDir.resolve("PG_VERSION")).as("JVM options passed on").exists();

			launcher.destroy();
			assertThat(launcher.waitFor(2, TimeUnit.MINUTES)).as("stopped").isTrue();
			assertThat(launcher.exitValue()).as("the service's exit status after SIGTERM").isEqualTo(143);
			assertThat(service.get(0).isAlive()).as("the service's JVM").isFalse();
			assertThat(output()).contains("Graceful shutdown complete", "Embedded PostgreSQL stopped");
			assertThat(dataDir.resolve("postmaster.pid")).doesNotExist();
		}
		finally {
			launcher.descendants().forEach(ProcessHandle::destroyForcibly);
			launcher.destroyForcibly();
		}
	}

	@Test
	void withNoJava25ToBeFoundItSaysWhatToInstallInOneLine() throws Exception {
		Path nothing = Files.createDirectories(this.directory.resolve("no-java-here"));
		ProcessBuilder builder = new ProcessBuilder(olderJava().toString(), "-Duser.home=" + nothing,
				"-D" + JavaInstallations.DIRECTORIES_PROPERTY + "=" + nothing, "-jar", jar().toString())
			.redirectErrorStream(true)
			.redirectOutput(this.directory.resolve("output.log").toFile());
		builder.environment().keySet().removeIf(JavaInstallations::namesAJavaHome);
		Process launcher = builder.start();
		assertThat(launcher.waitFor(2, TimeUnit.MINUTES)).isTrue();
		assertThat(launcher.exitValue()).isEqualTo(1);
		List<String> lines = output().lines().filter((line) -> !line.isBlank()).toList();
		assertThat(lines).as(output()).hasSize(1);
		assertThat(lines.get(0)).contains("Work Graph needs Java 25 or newer; this is Java ", "JAVA_HOME",
				"https://adoptium.net");
	}

	/** The Java 17 to 24 of this machine (the default java where Maven runs on 17). */
	private static Path olderJava() {
		List<JavaInstallations.Installation> older = new ArrayList<>(JavaInstallations.ofThisMachine()
			.all()
			.stream()
			.filter((installation) -> installation.feature() >= 17 && installation.feature() < Launcher.JAVA)
			.toList());
		if (older.isEmpty()) {
			String message = "No Java 17 to 24 on this machine to start the jar with (install one, e.g. Debian's "
					+ "openjdk-17-jre-headless)";
			if (!"true".equalsIgnoreCase(System.getenv("CI"))) {
				Assumptions.abort(message);
			}
			throw new IllegalStateException(message);
		}
		return older.get(0).java();
	}

	private static Path jar() throws IOException {
		try (Stream<Path> files = Files.list(Path.of("target"))) {
			return files.filter((file) -> file.getFileName().toString().matches("work-graph-service-.*\\.jar"))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("No packaged jar in target/: run ./mvnw verify"))
				.toAbsolutePath();
		}
	}

	private void awaitHealthy(Process launcher, int port) throws Exception {
		HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
		HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
			.timeout(Duration.ofSeconds(5))
			.build();
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			assertThat(launcher.isAlive()).as("running: " + output()).isTrue();
			try {
				HttpResponse<String> answer = http.send(health, HttpResponse.BodyHandlers.ofString());
				if (answer.statusCode() == 200 && answer.body().contains("\"UP\"")) {
					return;
				}
			}
			catch (IOException ex) {
				// Not listening yet.
			}
			Thread.sleep(500);
		}
		throw new AssertionError("Not healthy within " + START_TIMEOUT + ":\n" + output());
	}

	private String output() throws IOException {
		return Files.readString(this.directory.resolve("output.log"), StandardCharsets.UTF_8);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
