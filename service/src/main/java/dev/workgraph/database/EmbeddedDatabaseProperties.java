package dev.workgraph.database;

import java.nio.file.Path;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The embedded PostgreSQL, used only while {@code spring.datasource.url} is not set.
 *
 * @param enabled whether the service may start one at all; {@code false} makes a missing
 * {@code spring.datasource.url} a start-up failure (what a production deployment wants)
 * @param dataDir where its data lives, relative to the working directory unless absolute;
 * the server log is written beside it ({@code <data-dir>.log})
 * @param port its TCP port on the loopback interface; {@code 0} picks a free one at each
 * start, so that any number of services (each with its own data directory) can run on one
 * machine
 */
@ConfigurationProperties("workgraph.embedded-database")
public record EmbeddedDatabaseProperties(@DefaultValue("true") boolean enabled,
		@DefaultValue("./.workgraph/postgres") Path dataDir, @DefaultValue("0") int port) {

	public EmbeddedDatabaseProperties {
		if (port < 0 || port > 65_535) {
			throw new IllegalArgumentException("workgraph.embedded-database.port must be between 0 and 65535");
		}
	}

}
