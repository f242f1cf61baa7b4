package dev.workgraph.chaos;

import java.time.Duration;
import java.util.Arrays;

import dev.workgraph.chaos.ChaosCluster.Topology;
import dev.workgraph.chaos.ChaosRun.Result;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many instances, as a deployment for many teams runs them (docs/scaling.md): four
 * service instances on one database, two of them an hour ahead under libfaketime where it
 * is installed, every one reaching PostgreSQL through a real PgBouncer in transaction
 * mode, and the actors' requests going through a load balancer in front of them. The
 * history checker proves that no item was granted twice, each expiry was recorded once
 * (the four reapers race for every one), and every invariant of docs/reliability.md held.
 * The soak is short in the normal build; {@code -Dchaos.scale.load=10m} makes it long.
 */
@Tag("chaos")
class ManyInstancesTests {

	private static ChaosCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = ChaosCluster.start(new Topology(4, true, false, true), ChaosTests.reports("many-instances-services"));
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	void fourInstancesBehindALoadBalancerAndPgBouncerNeverGrantTwiceWhileOneIsKilled() {
		Duration load = ChaosSettings.parse(System.getProperty("chaos.scale.load", "20s"));
		Result result = run("many-instances", load, (faults, random, loading) -> {
			ChaosTests.pauseWhile(loading, 6_000);
			faults.killInstance(random.nextInt(4));
		});
		ChaosTests.assertExercised(result);
		assertThat(Arrays.stream(cluster.loadBalancer().connectionsPerInstance()))
			.as("connections the load balancer handed to each instance")
			.allSatisfy((connections) -> assertThat(connections).isPositive());
	}

	@Test
	void postgresRestartsAndCrashesUnderPgBouncerWithoutA500() {
		Result result = run("pgbouncer-postgres-restarted", Duration.ofSeconds(12), (faults, random, loading) -> {
			ChaosTests.pauseWhile(loading, 3_000);
			faults.restartPostgres("fast");
			ChaosTests.pauseWhile(loading, 4_000);
			faults.restartPostgres("immediate");
		});
		assertThat(result.faults()).hasSize(2);
		ChaosTests.assertExercised(result);
	}

	private static Result run(String name, Duration load, ChaosRun.FaultPlan plan) {
		Result result = new ChaosRun(name, ChaosSettings.quick(load), cluster, ChaosTests.reports(name)).run(plan);
		assertThat(result.passed()).as(result.failure()).isTrue();
		assertThat(result.figures().get("errors_5xx")).as("5xx other than 503").isZero();
		return result;
	}

}
