package dev.workgraph.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * The real service on a random port against this run's database. The reaper and the queue
 * vacuum do not run on a schedule here: tests that need expiries recorded call the reaper
 * themselves, so that "expired but not yet recorded" is a state they can hold on to.
 * Access control is off ({@code workgraph.security.enabled=false}): tests about access
 * turn it on with their own properties. Retries wait no back-off
 * ({@code workgraph.retry.backoff=0s}), so a failed or expired item is claimable again at
 * once: tests about back-off give their items a policy of their own.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "workgraph.lease.reaper-enabled=false", "workgraph.lease.vacuum-interval=0s",
				"workgraph.security.enabled=false", "workgraph.retry.backoff=0s" })
@Import(TestDatabaseConfiguration.class)
public @interface IntegrationTest {

}
