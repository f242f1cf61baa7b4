package dev.workgraph.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.test.context.TestPropertySource;

/**
 * The service under test reaches its database through a real PgBouncer in transaction
 * mode ({@link PgBouncer}, started once per JVM): put on a subclass of an existing
 * {@link ServiceTest}, it runs that class's tests again behind the pooler. Skipped where
 * PgBouncer is not installed, except under {@code CI=true}, where that fails.
 */
@Documented
@Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@TestPropertySource(properties = ThroughPgBouncer.PROPERTY + "=true")
@ExtendWith(ThroughPgBouncer.Installed.class)
public @interface ThroughPgBouncer {

	String PROPERTY = "workgraph.test.through-pgbouncer";

	/** Skips (or, in CI, fails) before the application context is built. */
	class Installed implements ExecutionCondition {

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			if (PgBouncer.installed()) {
				return ConditionEvaluationResult.enabled("PgBouncer is installed");
			}
			if ("true".equalsIgnoreCase(System.getenv("CI"))) {
				throw new IllegalStateException(
						"PgBouncer is not installed (Debian package 'pgbouncer'), and CI must run the tests through it");
			}
			return ConditionEvaluationResult
				.disabled("PgBouncer is not installed (Debian package 'pgbouncer'; or set -Dpgbouncer.bin)");
		}

	}

}
