package dev.workgraph.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.context.TestPropertySource;

/**
 * The service under test reaches its database through a real PgBouncer in transaction
 * mode ({@link PgBouncer}, started once per JVM): put on a subclass of an existing
 * {@link ServiceTest}, it runs that class's tests again behind the pooler. The long-poll
 * listener connects to PostgreSQL directly ({@code workgraph.notifications.url}), as
 * docs/scaling.md asks: {@code LISTEN} needs a session of its own. Skipped where
 * PgBouncer is not installed, except under {@code CI=true}, where that fails.
 */
@Documented
@Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
// Waiting claims are woken by the listener alone, never by the periodic recheck: a
// listener that heard nothing would show.
@TestPropertySource(
		properties = { ThroughPgBouncer.PROPERTY + "=true", "workgraph.notifications.recheck-interval=10m" })
@ContextConfiguration(initializers = ThroughPgBouncer.ListenDirectly.class)
@ExtendWith(ThroughPgBouncer.Installed.class)
public @interface ThroughPgBouncer {

	String PROPERTY = "workgraph.test.through-pgbouncer";

	/** The listener's connection: the test database itself, not the pooler. */
	class ListenDirectly implements ApplicationContextInitializer<ConfigurableApplicationContext> {

		@Override
		public void initialize(ConfigurableApplicationContext context) {
			TestDatabase.Coordinates direct = TestDatabase.coordinates();
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("listen-directly",
						Map.of("workgraph.notifications.url", direct.jdbcUrl(), "workgraph.notifications.username",
								direct.username(), "workgraph.notifications.password", direct.password())));
		}

	}

	/** Skips (or, in CI, fails) before the application context is built. */
	class Installed implements ExecutionCondition {

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			if (PgBouncer.installed()) {
				return ConditionEvaluationResult.enabled("PgBouncer is installed");
			}
			if (InstalledTools.inCi()) {
				throw new IllegalStateException(
						"PgBouncer is not installed (Debian package 'pgbouncer'), and CI must run the tests through it");
			}
			return ConditionEvaluationResult
				.disabled("PgBouncer is not installed (Debian package 'pgbouncer'; or set -Dpgbouncer.bin)");
		}

	}

}
