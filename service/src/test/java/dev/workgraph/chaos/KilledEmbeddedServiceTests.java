package dev.workgraph.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import dev.workgraph.testing.Api;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service running its embedded PostgreSQL is killed (SIGKILL: no shutdown hook). Its
 * PostgreSQL runs in a session of its own and outlives it, holding the data directory.
 * The next start stops that server (and removes its socket's directory), starts afresh on
 * the same data and loses nothing that was committed; a graceful stop then stops the
 * server too.
 */
class KilledEmbeddedServiceTests {

	@TempDir
	Path workDir;

	@Test
	void theNextStartStopsTheServerAKilledServiceLeftRunningAndKeepsItsData() throws IOException {
		Path dataDir = this.workDir.resolve("postgres");
		Path log = Path.of("target", "killed-embedded-service", "service.log");
		Files.deleteIfExists(log);
		ServiceInstance service = new ServiceInstance("embedded",
				Map.of("spring.datasource.url", "", "workgraph.embedded-database.data-dir", dataDir.toString(),
						"spring.main.banner-mode", "off", "workgraph.security.enabled", "false"),
				Map.of(), "the machine's clock", log);
		Optional<ProcessHandle> leftover = Optional.empty();
		try {
			service.start();
			Api.Response created = new Api(service.port()).post("/items", Map.of("title", "committed before the kill"));
			assertThat(created.status()).isEqualTo(201);

			service.kill();
			leftover = postmaster(dataDir);
			assertThat(leftover).as("PostgreSQL outlives the killed service").isPresent();
			Path socketDirectory = Path.of(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(4).strip());
			assertThat(socketDirectory).isDirectory();

			service.start();
			assertThat(leftover.get().isAlive()).as("the leftover server").isFalse();
			assertThat(socketDirectory).as("the leftover server's private socket directory").doesNotExist();
			assertThat(service.output()).contains("(pid " + leftover.get().pid() + ") left running by an earlier run");
			Api.Response item = new Api(service.port()).get("/items/" + created.id());
			assertThat(item.status()).isEqualTo(200);
			assertThat(item.body().path("title").asString()).isEqualTo("committed before the kill");

			service.stop();
			assertThat(service.alive()).isFalse();
			assertThat(dataDir.resolve("postmaster.pid")).as("stopped with the service").doesNotExist();
		}
		finally {
			service.kill();
			postmaster(dataDir).ifPresent(ProcessHandle::destroy);
			leftover.ifPresent(ProcessHandle::destroy);
		}
	}

	/** The running PostgreSQL that {@code postmaster.pid} names, if any. */
	private static Optional<ProcessHandle> postmaster(Path dataDir) throws IOException {
		Path pidFile = dataDir.resolve("postmaster.pid");
		if (!Files.exists(pidFile)) {
			return Optional.empty();
		}
		long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
		return ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
	}

}
