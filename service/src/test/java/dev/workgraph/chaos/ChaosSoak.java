package dev.workgraph.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.workgraph.chaos.ChaosRun.FaultPlan;
import dev.workgraph.chaos.ChaosRun.Result;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak: the chaos workload for {@code -Dchaos.duration} with a fault every 8–25
 * seconds, drawn at random from: SIGKILL of either instance, PostgreSQL restarted fast or
 * crashed, an exhausted connection pool. Run it with {@code bench/soak.sh DURATION}; it
 * prints {@code soak: seconds=N ops=N claims=N stale_writes_rejected=N expiries=N
 * faults=N violations=N errors_5xx=N} and fails unless the last two are 0. Not part of
 * the normal build (surefire only picks {@code *Tests}).
 */
@Tag("chaos")
@EnabledIfSystemProperty(named = "chaos.duration", matches = ".+")
class ChaosSoak {

	static final FaultPlan RANDOM_FAULTS = (faults, random, loading) -> {
		while (loading.getAsBoolean()) {
			ChaosTests.pauseWhile(loading, 8_000 + random.nextInt(17_000));
			if (!loading.getAsBoolean()) {
				return;
			}
			switch (random.nextInt(6)) {
				case 0, 1 -> faults.killInstance(random.nextInt(2));
				case 2 -> faults.restartPostgres("fast");
				case 3 -> faults.restartPostgres("immediate");
				default -> faults.exhaustPool(random.nextInt(2));
			}
		}
	};

	@Test
	void soak() throws IOException {
		Path reports = ChaosTests.reports("soak");
		Result result;
		try (ChaosCluster cluster = ChaosCluster.start(2, reports)) {
			result = new ChaosRun("soak", ChaosSettings.soak(), cluster, reports).run(RANDOM_FAULTS);
		}
		String summary = result.summary("soak");
		Files.writeString(reports.resolve("summary.txt"), summary + "\n", StandardCharsets.UTF_8);
		System.out.println(summary);
		assertThat(result.passed()).as(result.failure()).isTrue();
		assertThat(result.figures().get("errors_5xx")).isZero();
	}

}
