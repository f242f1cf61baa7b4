import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * Ready to lease granted through the worker stream, at 32 idle workers: the project's Java
 * worker runtime in a JVM of its own (bench/stream/StreamLatency.java), 32 workers each on its
 * own stream with one free slot, all waiting among the long-poll claims of one queue; items are
 * created in that queue one at a time at {@link #RATE} a second, {@link #WARM_SECONDS}
 * unmeasured, then {@link #MEASURE_SECONDS}. Latency runs from the item's {@code createdAt}
 * (PostgreSQL's clock, the start of the creating transaction: no later than the commit that
 * made it ready, so the figure is an upper bound on commit to lease) to the moment the
 * runtime hands a worker the pushed lease (the same machine clock, read in the workers' JVM).
 * The create call's return is measured against too, on the workers' JVM's monotonic clock, as
 * a cross-check: it can only be smaller, and is negative when the lease arrived before the
 * create's answer. Needs the client's classpath, which bench/run.sh writes to the run directory.
 */
final class StreamLatencyPoint extends RecordPoint<StreamLatencyPoint.Result> {

	static final int WORKERS = 32;

	static final double RATE = 50;

	/**
	 * Long enough for C2 to compile the grant path in both JVMs at this rate: it needs tens
	 * of seconds on two cores, and a latency point measures the steady state.
	 */
	static final int WARM_SECONDS = 40;

	static final int MEASURE_SECONDS = 30;

	/** A queue of its own: no other point's supply is ready in it. */
	static final String QUEUE = "bench-stream-latency";

	record Result(boolean available, String unavailableBecause, int workers, double offeredPerSecond, long items,
			long missing, Double p50Ms, Double p99Ms, Double maxMs, Double fromAnswerP50Ms, Double fromAnswerP99Ms,
			Double fromAnswerMaxMs, Double fromAnswerMinMs, Double toGrantP50Ms, Double toGrantP99Ms, Double pushP50Ms,
			Double pushP99Ms, String loadAverage) {
	}

	@Override
	public void run(Suite suite) throws Exception {
		Path classpathFile = suite.runDir.resolve("client.classpath");
		if (!Files.exists(classpathFile)) {
			this.result = new Result(false, "no client classpath in the run directory (bench/run.sh writes it)", WORKERS,
					0, 0, 0, null, null, null, null, null, null, null, null, null, null, null, Host.loadAverage());
			suite.problems.add("stream latency: " + this.result.unavailableBecause());
			return;
		}
		String classpath = Files.readString(classpathFile).strip();
		List<String> ids = IntStream.rangeClosed(1, WORKERS).mapToObj((i) -> "bench-latency-" + i).toList();
		Path workersFile = Auth.mint(suite.service.port, suite.adminToken, ids)
			.writeWorkersFile(suite.runDir.resolve("latency-workers"), ids);
		suite.probeMachine("stream latency");
		Suite.say("stream latency: %d idle stream workers, one item every %.0f ms, %d s warm-up, %d s measured", WORKERS,
				1000 / RATE, WARM_SECONDS, MEASURE_SECONDS);
		ProcessBuilder pb = new ProcessBuilder(suite.javaHome.resolve("bin/java").toString(), "-XX:+UseParallelGC",
				"-cp", classpath, suite.benchDir.resolve("stream/StreamLatency.java").toString(),
				"http://127.0.0.1:" + suite.service.port, suite.adminToken, workersFile.toString(), QUEUE,
				String.valueOf(RATE), String.valueOf(WARM_SECONDS), String.valueOf(MEASURE_SECONDS))
			.redirectErrorStream(true);
		Process p = pb.start();
		StringBuilder out = new StringBuilder();
		String line = null;
		try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
			for (String l; (l = in.readLine()) != null;) {
				out.append(l).append('\n');
				if (l.startsWith("wg-stream-latency ")) {
					line = l;
				}
			}
		}
		p.waitFor();
		String load = Host.loadAverage();
		suite.endStrandedLeases();
		if (line == null) {
			throw new IOException("the stream latency workers failed (" + p.exitValue() + "):\n" + out);
		}
		if (out.toString().contains("The worker stream is not available")) {
			// The runtime fell back to HTTP long polls: not what this point measures.
			suite.problems.add("stream latency: the workers fell back to HTTP long polls:\n" + out);
		}
		Map<String, Object> r = Json.object(line.substring("wg-stream-latency ".length()));
		this.result = new Result(true, null, WORKERS, (Double) r.get("offeredPerSecond"),
				Math.round((Double) r.get("items")), Math.round((Double) r.get("missing")), (Double) r.get("p50Ms"),
				(Double) r.get("p99Ms"), (Double) r.get("maxMs"), (Double) r.get("fromAnswerP50Ms"),
				(Double) r.get("fromAnswerP99Ms"), (Double) r.get("fromAnswerMaxMs"), (Double) r.get("fromAnswerMinMs"),
				(Double) r.get("toGrantP50Ms"), (Double) r.get("toGrantP99Ms"), (Double) r.get("pushP50Ms"),
				(Double) r.get("pushP99Ms"), load);
		Double failed = (Double) r.get("failedCreates");
		if (failed != null && failed > 0) {
			suite.problems.add("stream latency: " + Math.round(failed) + " creates failed or timed out:\n" + out);
		}
		if (this.result.missing() > 0) {
			suite.problems.add("stream latency: " + this.result.missing() + " items never reached a worker");
		}
		Suite.say("stream latency: p50 %s ms, p99 %s ms, max %s ms (from createdAt); from the create's answer p50 %s ms;"
				+ " until the grant began p50 %s / p99 %s ms, from then p50 %s / p99 %s ms; load average %s",
				ms(this.result.p50Ms()), ms(this.result.p99Ms()), ms(this.result.maxMs()),
				ms(this.result.fromAnswerP50Ms()), ms(this.result.toGrantP50Ms()), ms(this.result.toGrantP99Ms()),
				ms(this.result.pushP50Ms()), ms(this.result.pushP99Ms()), load);
	}

	@Override
	void table(Result r, Consumer<String> line) {
		line.accept(r.available() ? String.format(Locale.ROOT,
				"stream latency (ready -> lease pushed, %d idle stream workers of the Java runtime, own JVM, one item "
						+ "every %.0f ms, %d items): p50 %s ms, p99 %s ms, max %s ms from createdAt; from the create's "
						+ "answer p50 %s ms, p99 %s ms, min %s ms; until the granting transaction began p50 %s ms, p99 "
						+ "%s ms, from then to the worker p50 %s ms, p99 %s ms; %d never arrived; load average after %s",
				r.workers(), 1000 / RATE, r.items(), ms(r.p50Ms()), ms(r.p99Ms()), ms(r.maxMs()),
				ms(r.fromAnswerP50Ms()), ms(r.fromAnswerP99Ms()), ms(r.fromAnswerMinMs()), ms(r.toGrantP50Ms()),
				ms(r.toGrantP99Ms()), ms(r.pushP50Ms()), ms(r.pushP99Ms()), r.missing(), r.loadAverage())
				: "stream latency: not available (" + r.unavailableBecause() + ")");
	}

	@Override
	public List<String> summary() {
		Result r = this.result;
		boolean ran = r != null && r.available();
		return List.of("stream_ready_to_lease_p50_ms=" + (ran ? ms(r.p50Ms()) : "na"),
				"stream_ready_to_lease_p99_ms=" + (ran ? ms(r.p99Ms()) : "na"));
	}

	private static String ms(Double x) {
		return (x == null) ? "na" : String.format(Locale.ROOT, "%.1f", x);
	}

}
