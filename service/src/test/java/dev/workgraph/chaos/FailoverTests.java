package dev.workgraph.chaos;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.workgraph.chaos.ChaosCluster.Topology;
import dev.workgraph.chaos.ChaosRun.Result;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failover under load (docs/scaling.md): a primary with a synchronous streaming standby
 * (throwaway clusters, the standby made with {@code pg_basebackup}), two service
 * instances on a multi-host JDBC URL that targets the primary. Mid-load the primary is
 * stopped hard and, a second later, the standby promoted. The history checker then proves
 * that no acknowledged grant, completion or answer was lost (every lease a claim answered
 * exists as answered, every acknowledged ending is the recorded outcome, every
 * lease-history row seen before the switch is still there, every acknowledged answer is
 * resolved and acknowledged once), that no stale write was accepted across the switch and
 * epochs kept increasing, and that the only 5xx were 503s; and the service answers again
 * within {@link #RESUME_BOUND} of the promotion.
 */
@Tag("chaos")
class FailoverTests {

	/**
	 * The stated bound: from the promotion until every instance answers normally. pgjdbc
	 * rechecks a server it found unusable after a second (the harness's
	 * {@code hostRecheckSeconds=1}); the pool replaces its dead connections on demand.
	 */
	static final Duration RESUME_BOUND = Duration.ofSeconds(15);

	@Test
	void noAcknowledgedWriteIsLostWhenThePrimaryDiesAndTheSynchronousStandbyIsPromoted() {
		try (ChaosCluster cluster = ChaosCluster.start(new Topology(2, false, true, false),
				ChaosTests.reports("failover-services"))) {
			AtomicLong resumedMillis = new AtomicLong(-1);
			Result result = new ChaosRun("failover", ChaosSettings.quick(Duration.ofSeconds(16)), cluster,
					ChaosTests.reports("failover"))
				.run((faults, random, loading) -> {
					ChaosTests.pauseWhile(loading, 5_000);
					resumedMillis.set(faults.failover(1_000));
				});
			assertThat(result.passed()).as(result.failure()).isTrue();
			assertThat(result.figures().get("errors_5xx")).as("5xx other than 503").isZero();
			assertThat(result.faults()).singleElement()
				.satisfies((fault) -> assertThat(fault.name).startsWith("failover"));
			assertThat(resumedMillis.get()).as("milliseconds from the promotion until every instance answered")
				.isBetween(0L, RESUME_BOUND.toMillis());
			assertThat(result.details().get("answers_503") + result.details().get("no_answer_connection_failed"))
				.as("requests that met the outage")
				.isPositive();
			// Not the quick profile's bar: a synchronous commit waits for the standby's
			// flush, and on a crowded machine the run grants fewer leases; these still
			// span the switch (the load runs for 5 s before it and goes on after).
			assertThat(result.figures().get("claims")).as("claims").isGreaterThanOrEqualTo(10);
			assertThat(result.details().get("leases_completed")).as("completions").isPositive();
			assertThat(result.figures().get("stale_writes_rejected")).as("stale writes rejected").isPositive();
		}
	}

}
