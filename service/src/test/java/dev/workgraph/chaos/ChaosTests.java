package dev.workgraph.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.workgraph.chaos.ChaosRun.FaultPlan;
import dev.workgraph.chaos.ChaosRun.Result;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quick profile of the chaos harness, part of every build: short randomized workloads
 * against two real service processes on a throwaway PostgreSQL cluster, each with a fault
 * injected mid-load, each ending with the full history check. Workers with wrong clocks
 * take part in every scenario. The seed is printed; rerun a failing one with
 * {@code -Dchaos.seed=N}. The long version is {@code bench/soak.sh}.
 */
@Tag("chaos")
class ChaosTests {

	private static ChaosCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = ChaosCluster.start(2, reports("services"));
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	void invariantsHoldWhileAnInstanceIsKilledAndRestarted() {
		Result result = run("instance-killed", Duration.ofSeconds(15), (faults, random, loading) -> {
			pauseWhile(loading, 4_000);
			faults.killInstance(1);
		});
		assertThat(result.faults()).singleElement().satisfies((fault) -> assertThat(fault.name).startsWith("kill -9"));
		assertExercised(result);
	}

	@Test
	void invariantsHoldWhilePostgresRestartsAndCrashes() {
		Result result = run("postgres-restarted", Duration.ofSeconds(14), (faults, random, loading) -> {
			pauseWhile(loading, 3_000);
			faults.restartPostgres("fast");
			pauseWhile(loading, 4_000);
			faults.restartPostgres("immediate");
		});
		assertThat(result.faults()).hasSize(2);
		assertExercised(result);
	}

	@Test
	void exhaustedPoolAnswers503PromptlyAndRecovers() {
		Result result = run("pool-exhausted", Duration.ofSeconds(9), (faults, random, loading) -> {
			pauseWhile(loading, 3_000);
			faults.exhaustPool(0);
		});
		assertThat(result.details().get("answers_503")).as("503 answers while the pool was exhausted").isPositive();
		assertExercised(result);
	}

	private static Result run(String name, Duration load, FaultPlan plan) {
		Result result = new ChaosRun(name, ChaosSettings.quick(load), cluster, reports(name)).run(plan);
		assertThat(result.passed()).as(result.failure()).isTrue();
		assertThat(result.figures().get("errors_5xx")).isZero();
		return result;
	}

	/** The run did what it is meant to prove things about, not just idle. */
	static void assertExercised(Result result) {
		assertThat(result.figures().get("claims")).as("claims").isGreaterThan(20);
		assertThat(result.figures().get("stale_writes_rejected")).as("stale writes rejected").isPositive();
		assertThat(result.figures().get("expiries")).as("expiries").isPositive();
		assertThat(result.details().get("leases_completed")).as("completions").isPositive();
		assertThat(result.figures().get("batch_claims")).as("batch claims").isPositive();
		assertThat(result.figures().get("batch_completions")).as("batch completions").isPositive();
		assertThat(result.figures().get("stream_claims")).as("leases pushed to stream workers").isPositive();
		assertThat(result.figures().get("stream_completions")).as("completions over the stream").isPositive();
		assertExercisedBeyondClaims(result);
	}

	/**
	 * Checkpoints, failures, waits (some matched), events and handoffs happened, and
	 * answers showed scheduled times: the checker had something to judge them by.
	 */
	static void assertExercisedBeyondClaims(Result result) {
		for (String figure : List.of("checkpoints_acknowledged", "fails_acknowledged", "waits_acknowledged",
				"events_acknowledged", "handoffs_acknowledged", "notbefore_answers")) {
			assertThat(result.details().get(figure)).as(figure).isPositive();
		}
		assertThat(result.details().get("waits_matched_at_once")
				+ result.details().get("waits_matched_by_arriving_events"))
			.as("waits matched")
			.isPositive();
	}

	static void pauseWhile(java.util.function.BooleanSupplier loading, long millis) {
		long deadline = System.nanoTime() + millis * 1_000_000;
		while (loading.getAsBoolean() && System.nanoTime() < deadline) {
			ServiceInstance.sleep(100);
		}
	}

	static Path reports(String name) {
		return Path.of("target", "chaos", name);
	}

}
