import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The C load generator: wrk with bench/wrk/workgraph.lua, each connection one worker. The
 * closed loops run their connections on as many wrk threads as pgbench runs the raw side's
 * clients on ({@link Pg#GENERATOR_THREADS}); the open loop paces each connection, so it runs
 * one thread per connection. CPU is measured while it runs ({@link Cpu}, wrk as the generator).
 */
final class Wrk {

	/** What the script measured (latencies in milliseconds, from its microseconds). */
	record Run(int connections, double seconds, long items, long emptyClaims, long batches, long errors, long notFound,
			long due, long sent, Results.Latency claimMs, Results.Latency renewMs, Results.Latency completeMs,
			long socketErrors, List<String> errorSamples, Cpu.Cores cpu) {

		double itemsPerSecond() {
			return this.items / this.seconds;
		}

	}

	private final Path script;

	private final int port;

	private final Path workersFile;

	private final long servicePid;

	private final List<String> databases;

	/** The running wrk's pid, for the CPU meter (0 between runs). */
	private final AtomicLong pid = new AtomicLong();

	Wrk(Path script, int port, Path workersFile, long servicePid, List<String> databases) {
		this.script = script;
		this.port = port;
		this.workersFile = workersFile;
		this.servicePid = servicePid;
		this.databases = databases;
	}

	Run lifecycle(int connections, int seconds, boolean renew) throws IOException, InterruptedException {
		return run(connections, seconds, Map.of("WG_MODE", renew ? "renew" : "lifecycle"));
	}

	/** Claim, checkpoint (a small JSON object), complete: every item checkpointed once. */
	Run checkpointed(int connections, int seconds) throws IOException, InterruptedException {
		return run(connections, seconds, Map.of("WG_MODE", "checkpoint"));
	}

	/** Claim, then complete with claimNext: one request per item while items are ready. */
	Run chained(int connections, int seconds) throws IOException, InterruptedException {
		return run(connections, seconds, Map.of("WG_MODE", "chained"));
	}

	Run batch(int connections, int seconds, int size) throws IOException, InterruptedException {
		return run(connections, seconds, Map.of("WG_MODE", "batch", "WG_BATCH", String.valueOf(size)));
	}

	Run openLoop(int connections, double perSecond, int seconds) throws IOException, InterruptedException {
		return run(connections, connections, seconds, Map.of("WG_MODE", "open", "WG_RATE", String.valueOf(perSecond),
				"WG_SECONDS", String.valueOf(seconds)));
	}

	private Run run(int connections, int seconds, Map<String, String> env) throws IOException, InterruptedException {
		// The script gives each thread the same number of connections.
		int threads = (connections % Pg.GENERATOR_THREADS == 0) ? Pg.GENERATOR_THREADS : 1;
		return run(connections, threads, seconds, env);
	}

	private Run run(int connections, int threads, int seconds, Map<String, String> env)
			throws IOException, InterruptedException {
		List<String> cmd = new ArrayList<>(List.of("wrk", "-t", String.valueOf(threads), "-c",
				String.valueOf(connections), "-d", seconds + "s", "--timeout", "30s", "-s", this.script.toString(),
				"http://127.0.0.1:" + this.port));
		ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
		pb.environment().putAll(env);
		pb.environment().put("WG_CONNECTIONS", String.valueOf(connections));
		pb.environment().put("WG_THREADS", String.valueOf(threads));
		pb.environment().put("WG_WORKERS_FILE", this.workersFile.toString());
		try (Cpu cpu = new Cpu(this.servicePid, this.pid::get, this.databases)) {
			Process p = pb.start();
			this.pid.set(p.pid());
			String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			p.waitFor();
			this.pid.set(0);
			String line = out.lines().filter((l) -> l.startsWith("wg-result ")).findFirst().orElse(null);
			if (p.exitValue() != 0 || line == null) {
				throw new IOException("wrk failed (" + p.exitValue() + "):\n" + out);
			}
			Map<String, Object> r = Json.object(line.substring("wg-result ".length()));
			Map<String, Object> socket = map(r.get("socketErrors"));
			long socketErrors = 0;
			for (Object n : socket.values()) {
				socketErrors += ((Double) n).longValue();
			}
			@SuppressWarnings("unchecked")
			List<String> samples = (List<String>) r.get("errorSamples");
			return new Run(num(r, "connections").intValue(), num(r, "durationUs") / 1e6, num(r, "items").longValue(),
					num(r, "emptyClaims").longValue(), num(r, "batches").longValue(), num(r, "errors").longValue(),
					num(r, "notFound").longValue(), num(r, "due").longValue(), num(r, "sent").longValue(),
					latency(r.get("claimUs")), latency(r.get("renewUs")), latency(r.get("completeUs")), socketErrors,
					samples, cpu.cores());
		}
	}

	private static Double num(Map<String, Object> m, String key) {
		return (Double) m.get(key);
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object o) {
		return (Map<String, Object>) o;
	}

	private static Results.Latency latency(Object o) {
		Map<String, Object> m = map(o);
		return new Results.Latency(num(m, "n").longValue(), ms(m.get("p50")), ms(m.get("p99")), ms(m.get("p999")));
	}

	private static double ms(Object us) {
		return (us == null) ? Double.NaN : Results.round((Double) us / 1000, 2);
	}

}
