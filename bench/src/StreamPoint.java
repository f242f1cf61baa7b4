import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The whole system as users run it: N no-op workers of the project's Java worker runtime,
 * in a JVM of their own (bench/stream/StreamWorkers.java), on the worker stream, processing
 * a supply of ready items, with access control on (a minted worker token); in turns with
 * graphile-worker at the same concurrency, which counts its own worker process too. A turn
 * runs graphile-worker then the stream workers, the next one the other way round. CPU is
 * reported per side: the service, the workers' JVM (the generator), PostgreSQL.
 * Needs the client's classpath, which bench/run.sh writes to the run directory.
 */
final class StreamPoint implements Point {

	static final int CONCURRENCY = 32;

	static final String WORKER = "bench-stream";

	record Result(boolean available, String unavailableBecause, int concurrency, Results.Spread itemsPerSecond,
			Results.Spread workerCpuCores, Results.Spread serviceCpuCores, Results.Spread peerJobsPerSecond,
			Results.Spread ratioPerTurn, Results.Spread httpItemsPerSecond, Results.Spread httpWorkerCpuCores,
			Results.Spread httpServiceCpuCores) {
	}

	private Result result;

	@Override
	public void run(Suite suite) throws Exception {
		Path classpathFile = suite.runDir.resolve("client.classpath");
		if (!Files.exists(classpathFile)) {
			this.result = unavailable("no client classpath in the run directory (bench/run.sh writes it)");
			suite.problems.add("stream: " + this.result.unavailableBecause());
			return;
		}
		String classpath = Files.readString(classpathFile).strip();
		Peer peerRunner = new Peer(suite.benchDir.resolve("peer"));
		String why = peerRunner.install();
		String token = Auth.mint(suite.service.port, suite.adminToken, List.of(WORKER)).tokenFor(WORKER);
		Mode mode = suite.mode;
		List<Double> rates = new ArrayList<>();
		List<Double> workerCpu = new ArrayList<>();
		List<Double> serviceCpu = new ArrayList<>();
		List<Double> peerRates = new ArrayList<>();
		List<Double> ratios = new ArrayList<>();
		List<Double> httpRates = new ArrayList<>();
		List<Double> httpWorkerCpu = new ArrayList<>();
		List<Double> httpServiceCpu = new ArrayList<>();
		for (int rep = 0; rep < Math.max(1, mode.peerReps()); rep++) {
			boolean streamFirst = rep % 2 == 1;
			Run stream = null;
			Double peer = null;
			if (streamFirst) {
				stream = streamOnce(suite, classpath, token, "stream");
			}
			// The same runtime with a request per claim and write (long polls), for ADR 0031.
			Run http = streamOnce(suite, classpath, token, "http");
			httpRates.add(http.itemsPerSecond());
			httpWorkerCpu.add(http.cores().generator());
			httpServiceCpu.add(http.cores().service());
			if (why == null) {
				peer = peerOnce(suite, peerRunner);
			}
			if (!streamFirst) {
				stream = streamOnce(suite, classpath, token, "stream");
			}
			rates.add(stream.itemsPerSecond());
			workerCpu.add(stream.cores().generator());
			serviceCpu.add(stream.cores().service());
			if (peer != null) {
				peerRates.add(peer);
				ratios.add(stream.itemsPerSecond() / peer);
			}
			Suite.say("stream turn %d: %.0f items/s (worker JVM %.2f cores, service %.2f, postgres %.2f)%s", rep + 1,
					stream.itemsPerSecond(), stream.cores().generator(), stream.cores().service(),
					stream.cores().postgres(),
					(peer != null) ? String.format(Locale.ROOT, "; graphile-worker %.0f jobs/s, ratio %.2f", peer,
							stream.itemsPerSecond() / peer) : "");
			Suite.say("  the same runtime over HTTP: %.0f items/s (worker JVM %.2f cores, service %.2f)",
					http.itemsPerSecond(), http.cores().generator(), http.cores().service());
		}
		if (why != null) {
			suite.problems.add("stream: peer not available (" + why + ")");
		}
		this.result = new Result(true, null, CONCURRENCY, Results.Spread.of(rates), Results.Spread.of(workerCpu),
				Results.Spread.of(serviceCpu), Results.Spread.of(peerRates), Results.Spread.of(ratios),
				Results.Spread.of(httpRates), Results.Spread.of(httpWorkerCpu), Results.Spread.of(httpServiceCpu));
	}

	private static Result unavailable(String why) {
		return new Result(false, why, CONCURRENCY, Results.Spread.none(), Results.Spread.none(), Results.Spread.none(),
				Results.Spread.none(), Results.Spread.none(), Results.Spread.none(), Results.Spread.none(),
				Results.Spread.none());
	}

	private record Run(double itemsPerSecond, Cpu.Cores cores) {
	}

	/** One run of the workers' JVM, over the stream or ({@code "http"}) a request each. */
	private static Run streamOnce(Suite suite, String classpath, String token, String transport) throws Exception {
		Mode mode = suite.mode;
		suite.probeMachine("stream (" + transport + ")");
		suite.fresh(Math.max(Suite.QUIET_SERVICE_RATE, suite.serviceRate) * Suite.SUPPLY_FACTOR
				* (mode.peerWarmSeconds() + mode.peerSeconds()));
		ProcessBuilder pb = new ProcessBuilder(suite.javaHome.resolve("bin/java").toString(), "-XX:+UseParallelGC",
				"-cp", classpath, suite.benchDir.resolve("stream/StreamWorkers.java").toString(),
				"http://127.0.0.1:" + suite.service.port, token, WORKER, String.valueOf(CONCURRENCY),
				String.valueOf(mode.peerWarmSeconds()), String.valueOf(mode.peerSeconds()), transport)
			.redirectErrorStream(true);
		Process p = pb.start();
		StringBuilder out = new StringBuilder();
		Cpu cpu = null;
		Cpu.Cores cores = Cpu.Cores.NONE;
		String line = null;
		try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
			for (String l; (l = in.readLine()) != null;) {
				out.append(l).append('\n');
				if (l.equals("wg-window start")) {
					cpu = new Cpu(suite.service.pid, p::pid, suite.databases);
				}
				else if (l.equals("wg-window end") && cpu != null) {
					cores = cpu.cores();
				}
				else if (l.startsWith("wg-stream ")) {
					line = l;
				}
			}
		}
		finally {
			if (cpu != null) {
				cpu.close();
			}
		}
		p.waitFor();
		suite.endStrandedLeases();
		if (line == null) {
			throw new IOException("the stream workers failed (" + p.exitValue() + "):\n" + out);
		}
		Map<String, Object> r = Json.object(line.substring("wg-stream ".length()));
		return new Run((Double) r.get("itemsPerSecond"), cores);
	}

	private static double peerOnce(Suite suite, Peer peerRunner) throws Exception {
		Mode mode = suite.mode;
		suite.probeMachine("stream (graphile-worker in turns)");
		String peerDb = suite.mainDb() + "_speer";
		suite.services.createDatabase(peerDb);
		List<String> dbs = new ArrayList<>(suite.databases);
		dbs.add(peerDb);
		long jobs = (long) (Suite.QUIET_PEER_RATE * Suite.SUPPLY_FACTOR
				* (mode.peerWarmSeconds() + mode.peerSeconds()));
		try {
			return peerRunner
				.run(peerDb, CONCURRENCY, jobs, mode.peerWarmSeconds(), mode.peerSeconds(), suite.service.pid, dbs)
				.jobsPerSecond();
		}
		finally {
			Pg.dropDatabase(peerDb);
		}
	}

	@Override
	public void results(Map<String, Object> into) {
		into.put("stream", this.result);
	}

	@Override
	public void table(Consumer<String> line) {
		Result r = this.result;
		if (r == null) {
			return;
		}
		line.accept(r.available() ? String.format(Locale.ROOT,
				"stream (Java worker runtime, own JVM, %d no-op handlers, worker stream, tokens on): %s items/s, "
						+ "worker JVM cpu %s cores, service cpu %s cores; graphile-worker in turns %s jobs/s, "
						+ "ratio per turn %s; the same runtime over HTTP %s items/s, worker JVM cpu %s, service cpu %s",
				r.concurrency(), r.itemsPerSecond().text(), r.workerCpuCores().text(), r.serviceCpuCores().text(),
				r.peerJobsPerSecond().text(), r.ratioPerTurn().runs(), r.httpItemsPerSecond().text(),
				r.httpWorkerCpuCores().text(), r.httpServiceCpuCores().text())
				: "stream: not available (" + r.unavailableBecause() + ")");
	}

	@Override
	public List<String> summary() {
		Result r = this.result;
		boolean ran = r != null && r.available();
		return List.of(
				"stream_32=" + (ran ? String.format(Locale.ROOT, "%.0f", r.itemsPerSecond().median()) : "na"),
				"peer_ratio_stream_32="
						+ ((ran && !r.ratioPerTurn().runs().isEmpty())
								? String.format(Locale.ROOT, "%.2f", r.ratioPerTurn().median()) : "na"));
	}

}
