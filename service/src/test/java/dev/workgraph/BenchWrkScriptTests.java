package dev.workgraph;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.InstalledTools;
import dev.workgraph.testing.IntegrationTest;
import dev.workgraph.testing.RepositoryRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark's C load generator (bench/wrk/workgraph.lua) runs several workers on each
 * wrk thread and finds the worker of each answer by the {@code X-Request-Id} the service
 * echoes. A slip there would count items wrongly, or give a worker two items at once, and
 * show only as odd figures in a benchmark run: this runs the script against the service
 * and checks what it did against the database.
 */
@IntegrationTest
class BenchWrkScriptTests {

	private static final int CONNECTIONS = 8;

	private static final int THREADS = 2;

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private JdbcClient jdbc;

	@ParameterizedTest
	@ValueSource(strings = { "lifecycle", "renew", "checkpoint", "chained" })
	void eachWorkerTakesOneItemAtATimeAndEveryCompletionIsCounted(String mode)
			throws IOException, InterruptedException {
		String queue = supply(mode, 300);

		JsonNode result = wrk(mode, queue, Map.of());

		assertCleanRun(result);
		long counted = result.get("items").asLong();
		assertThat(counted).isPositive();
		// A completion in flight when wrk stops is done but not counted: one per
		// connection at most.
		assertThat(completed(queue)).isBetween(counted, counted + CONNECTIONS);
		assertThat(this.jdbc.sql("""
				select count(distinct h.worker_id) from lease_history h join work_items w on w.id = h.item_id
				where w.queue = ?""").param(queue).query(Long.class).single()).isEqualTo(CONNECTIONS);
		assertThat(this.jdbc.sql("""
				select count(*) from (
				    select h.acquired_at,
				           lag(h.ended_at) over (partition by h.worker_id order by h.acquired_at) as previous_end
				    from lease_history h join work_items w on w.id = h.item_id where w.queue = ?
				) t where acquired_at < previous_end""").param(queue).query(Long.class).single())
			.as("leases of one worker that overlap")
			.isZero();
		if (mode.equals("renew") || mode.equals("checkpoint")) {
			assertThat(result.at("/renewUs/n").asLong()).isGreaterThanOrEqualTo(counted);
		}
		if (mode.equals("checkpoint")) {
			assertThat(this.jdbc.sql("""
					select count(*) from work_items w where w.queue = ? and w.status = 'completed'
					and (select count(*) from checkpoints k where k.item_id = w.id) <> 1""")
				.param(queue)
				.query(Long.class)
				.single()).as("completed items without exactly one checkpoint").isZero();
		}
	}

	@Test
	void batchesCountEveryItemOfEveryCompletedBatch() throws IOException, InterruptedException {
		String queue = supply("batch", 600);

		JsonNode result = wrk("batch", queue, Map.of("WG_BATCH", "10"));

		assertCleanRun(result);
		long counted = result.get("items").asLong();
		assertThat(counted).isPositive();
		// Full batches, but for the last ones if the supply runs out.
		assertThat(counted).isBetween(result.get("batches").asLong(), result.get("batches").asLong() * 10);
		assertThat(completed(queue)).isBetween(counted, counted + 10L * CONNECTIONS);
	}

	private static void assertCleanRun(JsonNode result) {
		assertThat(result.get("errorSamples").size()).as("%s", result.get("errorSamples")).isZero();
		assertThat(result.get("errors").asLong()).isZero();
		assertThat(result.get("socketErrors").properties())
			.allSatisfy((e) -> assertThat(e.getValue().asLong()).as("socket errors (%s)", e.getKey()).isZero());
		assertThat(result.get("connections").asInt()).isEqualTo(CONNECTIONS);
	}

	private String supply(String mode, int items) {
		String queue = "wrk-script-" + mode + "-" + UUID.randomUUID().toString().substring(0, 8);
		Api api = new Api(this.port);
		for (int i = 0; i < items; i++) {
			assertThat(api.post("/items", Map.of("title", "wrk " + i, "queue", queue)).status()).isEqualTo(201);
		}
		return queue;
	}

	private long completed(String queue) {
		return this.jdbc.sql("""
				select count(*) from lease_history h join work_items w on w.id = h.item_id
				where w.queue = ? and h.outcome = 'completed'""").param(queue).query(Long.class).single();
	}

	private JsonNode wrk(String mode, String queue, Map<String, String> env) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of(wrkBinary().toString(), "-t", String.valueOf(THREADS), "-c",
				String.valueOf(CONNECTIONS), "-d", "2s", "--timeout", "10s", "-s",
				RepositoryRoot.path().resolve("bench/wrk/workgraph.lua").toString(), "http://127.0.0.1:" + this.port));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().putAll(env);
		builder.environment()
			.putAll(Map.of("WG_MODE", mode, "WG_QUEUE", queue, "WG_CONNECTIONS", String.valueOf(CONNECTIONS),
					"WG_THREADS", String.valueOf(THREADS)));
		Process process = builder.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor()).as(output).isZero();
		String line = output.lines()
			.filter((l) -> l.startsWith("wg-result "))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no wg-result line in wrk's output:\n" + output));
		return JSON.readTree(line.substring("wg-result ".length()));
	}

	private static Path wrkBinary() {
		Path wrk = InstalledTools.onPath("wrk");
		if (wrk == null) {
			InstalledTools
				.missing("wrk is not installed (Debian package 'wrk'): the benchmark script's tests are skipped");
		}
		return wrk;
	}

}
