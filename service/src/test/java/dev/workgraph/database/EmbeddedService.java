package dev.workgraph.database;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.workgraph.WorkGraphApplication;
import dev.workgraph.testing.Api;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The whole service, started as {@code ./mvnw spring-boot:run} would, with an explicitly
 * blank {@code spring.datasource.url} so that a developer's own environment cannot
 * interfere: it runs its embedded PostgreSQL on the given data directory.
 */
final class EmbeddedService {

	private EmbeddedService() {
	}

	static ConfigurableApplicationContext start(Path dataDir, String... extra) {
		List<String> args = new ArrayList<>(
				List.of("--spring.datasource.url=", "--workgraph.embedded-database.data-dir=" + dataDir));
		args.addAll(List.of(extra));
		return run(args.toArray(String[]::new));
	}

	static ConfigurableApplicationContext run(String... args) {
		List<String> all = new ArrayList<>(
				List.of("--server.port=0", "--spring.main.banner-mode=off", "--workgraph.lease.reaper-enabled=false",
						"--workgraph.lease.vacuum-interval=0s", "--workgraph.security.enabled=false"));
		all.addAll(List.of(args));
		return new SpringApplicationBuilder(WorkGraphApplication.class).run(all.toArray(String[]::new));
	}

	static Api api(ConfigurableApplicationContext service) {
		return new Api(Integer.parseInt(service.getEnvironment().getProperty("local.server.port")));
	}

}
