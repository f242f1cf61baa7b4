package dev.workgraph.database;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * With no {@code spring.datasource.url} (and no other connection details, such as a
 * test's database), the service starts an embedded PostgreSQL and connects to it. An
 * auto-configuration, so that it runs after the application's own configuration has had
 * its say and before the DataSource's, which then finds these connection details.
 */
@AutoConfiguration(before = DataSourceAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "workgraph.embedded-database.enabled", matchIfMissing = true)
@Conditional(EmbeddedDatabaseAutoConfiguration.NoDataSourceUrl.class)
@ConditionalOnMissingBean(JdbcConnectionDetails.class)
@EnableConfigurationProperties(EmbeddedDatabaseProperties.class)
class EmbeddedDatabaseAutoConfiguration {

	/** Closed when the context closes, after the pool that depends on it. */
	@Bean(destroyMethod = "close")
	EmbeddedPostgresServer embeddedPostgresServer(EmbeddedDatabaseProperties properties) {
		return EmbeddedPostgresServer.start(properties);
	}

	@Bean
	JdbcConnectionDetails embeddedPostgresConnectionDetails(EmbeddedPostgresServer server) {
		return new JdbcConnectionDetails() {

			@Override
			public String getJdbcUrl() {
				return server.jdbcUrl();
			}

			@Override
			public String getUsername() {
				return EmbeddedPostgresServer.USER;
			}

			@Override
			public String getPassword() {
				return server.password();
			}

		};
	}

	/** A blank URL counts as none, as it does for Spring Boot's own DataSource. */
	static class NoDataSourceUrl extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			String url = context.getEnvironment().getProperty("spring.datasource.url");
			return StringUtils.hasText(url) ? ConditionOutcome.noMatch("spring.datasource.url is set")
					: ConditionOutcome.match("no spring.datasource.url");
		}

	}

}
