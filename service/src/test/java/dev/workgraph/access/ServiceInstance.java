package dev.workgraph.access;

import java.util.ArrayList;
import java.util.List;

import dev.workgraph.WorkGraphApplication;
import dev.workgraph.testing.Api;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A service instance of its own (application context, connection pool, HTTP port) with
 * access control on, as a deployment runs it; closed when the test is done.
 */
final class ServiceInstance implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private ServiceInstance(ConfigurableApplicationContext context) {
		this.context = context;
	}

	/**
	 * Starts an instance on this database; {@code arguments} are further command-line
	 * properties, which take precedence over application.yml.
	 */
	static ServiceInstance start(String name, String jdbcUrl, String username, String password, String... arguments) {
		List<String> all = new ArrayList<>(List.of("--server.port=0", "--spring.datasource.url=" + jdbcUrl,
				"--spring.datasource.username=" + username, "--spring.datasource.password=" + password,
				"--spring.datasource.hikari.pool-name=" + name, "--workgraph.lease.reaper-enabled=false",
				"--workgraph.lease.vacuum-interval=0s", "--workgraph.security.enabled=true"));
		all.addAll(List.of(arguments));
		return new ServiceInstance(
				new SpringApplicationBuilder(WorkGraphApplication.class).run(all.toArray(String[]::new)));
	}

	Api api() {
		return new Api(((WebServerApplicationContext) this.context).getWebServer().getPort());
	}

	@Override
	public void close() {
		this.context.close();
	}

}
