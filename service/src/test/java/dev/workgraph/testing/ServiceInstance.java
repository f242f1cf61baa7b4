package dev.workgraph.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import dev.workgraph.WorkGraphApplication;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A service instance of its own (application context, connection pool, HTTP port) with
 * access control on, as a deployment runs it; closed when the test is done.
 */
public final class ServiceInstance implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private ServiceInstance(ConfigurableApplicationContext context) {
		this.context = context;
	}

	/**
	 * Starts an instance on this database; {@code arguments} are further command-line
	 * properties, which take precedence over application.yml and over the defaults here
	 * (no reaper, no queue vacuum, access control on).
	 */
	public static ServiceInstance start(String name, String jdbcUrl, String username, String password,
			String... arguments) {
		List<String> all = new ArrayList<>(List.of("--server.port=0", "--spring.datasource.url=" + jdbcUrl,
				"--spring.datasource.username=" + username, "--spring.datasource.password=" + password,
				"--spring.datasource.hikari.pool-name=" + name));
		// A property given twice on the command line binds as both values joined, not as
		// the last one, so a default is left out where an argument names its property.
		Stream
			.of("--workgraph.lease.reaper-enabled=false", "--workgraph.lease.vacuum-interval=0s",
					"--workgraph.security.enabled=true")
			.filter((setting) -> Stream.of(arguments)
				.noneMatch((argument) -> argument.startsWith(setting.substring(0, setting.indexOf('=') + 1))))
			.forEach(all::add);
		all.addAll(List.of(arguments));
		return new ServiceInstance(
				new SpringApplicationBuilder(WorkGraphApplication.class).run(all.toArray(String[]::new)));
	}

	/** Starts an instance on a database of its own. */
	public static ServiceInstance start(String name, FreshDatabase database, String... arguments) {
		return start(name, database.jdbcUrl(), database.username(), database.password(), arguments);
	}

	public Api api() {
		return new Api(((WebServerApplicationContext) this.context).getWebServer().getPort());
	}

	/** The instance's bean of this type (its connection pool, for instance). */
	public <T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
