import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * Work Graph's benchmark suite (bench/run.sh starts it). Measures, in one run and under
 * equal conditions: the raw PostgreSQL ceiling of the service's own claim/complete
 * statements (pgbench, a C program), the service over HTTP at the same concurrency driven
 * by wrk (C, the fair side of the ratio) and by a JVM generator (the realistic client),
 * graphile-worker as a peer on the same server, batches, latency at a fixed offered rate,
 * claim cost as the table grows, deep graphs, and the reaper. Prints a table and one
 * summary line, writes the figures as JSON ({@link Results}).
 */
public class Bench {

	/** How much of everything to do. */
	record Mode(String name, int pointSeconds, int warmSeconds, int pointWarmSeconds, int repsAt32,
			int repsElsewhere, boolean renewAllW, int openSeconds, int openReps, long[] sizes, int scaleClaims,
			int scaleReps, int graphReps, int reaperReps, int peerWarmSeconds, int peerSeconds, int peerReps) {

		int reps(int workers) {
			return (workers == 32) ? this.repsAt32 : this.repsElsewhere;
		}

	}

	static final Mode QUICK = new Mode("quick", 4, 60, 2, 3, 1, false, 10, 1,
			new long[] { 1_000, 100_000, 1_000_000 }, 60, 6, 1, 2, 5, 5, 3);

	static final Mode FULL = new Mode("full", 10, 90, 5, 3, 3, true, 30, 3, new long[] { 1_000, 100_000, 10_000_000 },
			150, 6, 3, 5, 10, 10, 3);

	static final int[] WORKERS = { 1, 8, 32, 128 };

	static final String QUEUE = "default";

	static final int BATCH_SIZE = 100;

	static final int BATCH_CONNECTIONS = 8;

	/**
	 * Lifecycles each scale service runs before its fill. Cold, the first size measured the
	 * JIT compiler, not the table: claim p50 3.3-7.8 ms at 1,000 items against 1.5 ms once
	 * warm.
	 */
	static final int SCALE_WARM_LIFECYCLES = 4_000;

	/** Lifecycles at each scale size between its fill and its measurement. */
	static final int SCALE_SIZE_WARM_LIFECYCLES = 10;

	static final int PEER_CONCURRENCY = 32;

	/** The wrk connections are workers wrk-1 ... wrk-128, the JVM's bench-0 ... bench-127. */
	static final List<String> WRK_WORKERS = IntStream.rangeClosed(1, 128).mapToObj((i) -> "wrk-" + i).toList();

	static final List<String> OTHER_WORKERS = List.of("bench-scale", "bench-chain", "bench-fanin");

	final Mode mode;

	final Path javaHome;

	final Path jar;

	final Path runDir;

	final Path resultsDir;

	final Path benchDir;

	final String stamp;

	/** Failed checks and error answers: the run exits non-zero. */
	final List<String> problems = new ArrayList<>();

	/** Things the reader must know about the figures, which are not failures. */
	final List<String> notes = new ArrayList<>();

	/** The machine probe's CPU seconds before each repetition, per point, in run order. */
	final Map<String, List<Double>> machineProbes = new LinkedHashMap<>();

	private MachineProbe machineProbe;

	long serviceErrors;

	Pg pg;

	Fixtures fixtures;

	Service service;

	Load load;

	Wrk wrk;

	Sql sql;

	Auth auth;

	/** Diagnostic raw script: the lifecycle plus the response-view reads (W=32 only). */
	Path viewsScript;

	/** The databases of this run, for the CPU meter (their backends are PostgreSQL's share). */
	final List<String> databases = new ArrayList<>();

	/** Best rate seen per side, to size each point's supply generously. */
	double rawRate = 4000;

	double serviceRate = 2000;

	double peerRate = 3000;

	/**
	 * Ready items per point: this many times (best rate seen) x (warm-up + point), and never
	 * less than quiet-machine rates allow for (a neighbour's load can stop mid-run, and a
	 * drained queue must not be measured as throughput).
	 */
	static final double SUPPLY_FACTOR = 3;

	static final double QUIET_RAW_RATE = 5000;

	static final double QUIET_SERVICE_RATE = 2500;

	static final double QUIET_BATCH_RATE = 15_000;

	static final double QUIET_PEER_RATE = 6000;

	// What the run measured so far (null until measured), written at every checkpoint.
	final String startedAt = Instant.now().toString();

	final String loadBefore = loadAverage();

	final List<Results.ThroughputPoint> throughput = new ArrayList<>();

	Results.ServiceInfo serviceInfo;

	Results.Batch batch;

	Results.Chained chained;

	Results.Peer peer;

	Results.OpenLoop openLoop;

	Results.OpenLoop openLoopJvm;

	Results.Chain chain;

	Results.FanIn fanIn;

	Results.Reaper reaper;

	Results.Scale scale;

	final long started = System.nanoTime();

	Bench(Mode mode, Path javaHome, Path jar, Path runDir, Path resultsDir, Path benchDir) {
		this.mode = mode;
		this.javaHome = javaHome;
		this.jar = jar;
		this.runDir = runDir;
		this.resultsDir = resultsDir;
		this.benchDir = benchDir;
		this.stamp = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC).format(Instant.now());
	}

	public static void main(String[] args) throws Exception {
		Mode mode = FULL;
		int reaperOnly = 0;
		int openLoopOnly = 0;
		int scaleOnly = 0;
		boolean fullSizes = false;
		Path javaHome = Path.of(System.getProperty("java.home"));
		Path jar = Path.of("service/target/work-graph-service-0.1.0-SNAPSHOT.jar");
		Path runDir = null;
		Path results = Path.of("bench/results");
		for (int i = 0; i < args.length; i++) {
			switch (args[i]) {
				case "--quick" -> mode = QUICK;
				case "--reaper-only" -> reaperOnly = Integer.parseInt(args[++i]);
				case "--open-loop-only" -> openLoopOnly = Integer.parseInt(args[++i]);
				case "--scale-only" -> scaleOnly = Integer.parseInt(args[++i]);
				case "--full-sizes" -> fullSizes = true;
				case "--jar" -> jar = Path.of(args[++i]);
				case "--run-dir" -> runDir = Path.of(args[++i]);
				case "--results" -> results = Path.of(args[++i]);
				default -> throw new IllegalArgumentException("unknown argument " + args[i]);
			}
		}
		if (reaperOnly > 0) {
			// The reaper point alone, repeated: for finding out why it varies.
			mode = new Mode("reaper", 0, 0, 0, 0, 0, false, 0, 0, new long[0], 0, 0, 0, reaperOnly, 0, 0, 0);
		}
		if (openLoopOnly > 0) {
			// The service's warm-up, then the open loop alone, repeated: for its latencies.
			mode = new Mode("open", QUICK.pointSeconds(), QUICK.warmSeconds(), QUICK.pointWarmSeconds(), 0, 0, false,
					QUICK.openSeconds(), openLoopOnly, new long[0], 0, 0, 0, 0, 0, 0, 0);
		}
		if (scaleOnly > 0) {
			// The scale points alone, each size measured N times: for their latencies, and
			// with the full run's sizes for the audit of its largest table.
			mode = new Mode("scale", 0, 0, 0, 0, 0, false, 0, 0, (fullSizes ? FULL : QUICK).sizes(),
					QUICK.scaleClaims(), scaleOnly, 0, 0, 0, 0, 0);
		}
		runDir = (runDir != null) ? Files.createDirectories(runDir) : Files.createTempDirectory("wg-bench");
		Files.createDirectories(results);
		System.exit(new Bench(mode, javaHome, jar.toAbsolutePath(), runDir.toAbsolutePath(), results,
				Path.of("bench").toAbsolutePath())
			.run());
	}

	int run() throws Exception {
		say("bench: mode=%s run dir %s, load average %s", this.mode.name(), this.runDir, this.loadBefore);

		this.sql = Sql.fromJar(this.jar, this.runDir.resolve("app"), this.benchDir.resolve("statements.properties"));
		Map<String, Path> scripts = new LinkedHashMap<>();
		for (var e : this.sql.scripts().entrySet()) {
			Path p = this.runDir.resolve(e.getKey() + ".pgbench.sql");
			Files.writeString(p, e.getValue());
			scripts.put(e.getKey(), p);
		}
		this.viewsScript = this.runDir.resolve("lifecycle_views.pgbench.sql");
		Files.writeString(this.viewsScript, this.sql.lifecycleWithViews());
		say("raw scripts (the service's own statements, read from %s as bench/statements.properties names them): %s",
				this.jar.getFileName(), scripts.values());

		// The main service on a fresh database; the scale points start services of their
		// own once it has stopped (see scale()).
		String adminToken = Auth.newAdminToken();
		String mainDb = "wgbench_" + this.stamp.toLowerCase(Locale.ROOT);
		String peerDb = mainDb + "_peer";
		if (this.mode.name().equals("scale")) {
			this.scale = scale(mainDb, adminToken);
			return report();
		}
		Service mainService = launch(mainDb, adminToken);
		if (this.mode.name().equals("reaper")) {
			use(mainService, mainDb, adminToken);
			this.reaper = reaper();
			this.serviceInfo = serviceInfo(mainDb, consistency(), this.service.cpuSeconds());
			stopService(mainDb);
			return report();
		}
		if (this.mode.name().equals("open")) {
			use(mainService, mainDb, adminToken);
			warmUp(scripts.get("lifecycle"));
			this.openLoop = openLoopWrk();
			this.openLoopJvm = openLoopJvm();
			this.serviceInfo = serviceInfo(mainDb, consistency(), this.service.cpuSeconds());
			stopService(mainDb);
			return report();
		}
		use(mainService, mainDb, adminToken);

		warmUp(scripts.get("lifecycle"));
		throughput(scripts);
		checkpoint();
		this.batch = batch();
		checkpoint();
		Repetitions chainedReps = chainedRepetitions();
		this.peer = peer(peerDb, chainedReps);
		this.chained = chained(chainedReps);
		checkpoint();
		this.openLoop = openLoopWrk();
		this.openLoopJvm = openLoopJvm();
		checkpoint();
		this.chain = chain();
		this.fanIn = fanIn();
		checkpoint();
		this.reaper = reaper();
		checkpoint();
		Results.Consistency consistency = consistency();
		this.serviceInfo = serviceInfo(mainDb, consistency, this.service.cpuSeconds());
		stopService(mainDb);

		this.scale = scale(mainDb, adminToken);
		return report();
	}

	// ---------------------------------------------------------------- service lifecycle

	Service launch(String db, String adminToken) throws Exception {
		Pg.createDatabase(db);
		this.databases.add(db);
		Files.writeString(this.runDir.resolve("databases"), db + "\n", StandardOpenOption.CREATE,
				StandardOpenOption.APPEND);
		return Service.launch(this.javaHome, this.jar, db, Service.freePort(), adminToken,
				this.runDir.resolve(db + ".log"), this.runDir.resolve("pids"));
	}

	/** Waits for the service to be healthy, mints the workers' tokens, points the run at it. */
	void use(Service s, String db, String adminToken) throws Exception {
		long t0 = System.nanoTime();
		List<String> workers = new ArrayList<>(WRK_WORKERS);
		IntStream.range(0, 128).mapToObj(Load::workerId).forEach(workers::add);
		workers.addAll(OTHER_WORKERS);
		enter(attach(s, db, adminToken, workers));
		this.wrk = new Wrk(this.benchDir.resolve("wrk/workgraph.lua"), s.port,
				this.auth.writeWorkersFile(this.runDir.resolve("wrk-workers"), WRK_WORKERS), s.pid, this.databases);
		say("service pid %d on :%d, database %s, healthy (waited %.1f s); tokens: %s", s.pid, s.port, db,
				(System.nanoTime() - t0) / 1e9, this.auth.mode);
	}

	/** A started service on its database, with tokens for these workers. */
	record Attached(Service service, String db, Pg pg, Fixtures fixtures, Auth auth, Load load) {
	}

	/** Waits for the service to be healthy, installs the fixtures and mints the workers' tokens. */
	Attached attach(Service s, String db, String adminToken, List<String> workers) throws Exception {
		s.awaitHealthy(Duration.ofSeconds(180));
		Pg pg = new Pg(db);
		Fixtures fixtures = new Fixtures(pg);
		fixtures.install();
		Auth auth = Auth.mint(s.port, adminToken, workers);
		return new Attached(s, db, pg, fixtures, auth, new Load(s.port, auth));
	}

	/** Points the run at one service: the points, the audit, its info and its stop use it. */
	void enter(Attached attached) {
		this.service = attached.service();
		this.pg = attached.pg();
		this.fixtures = attached.fixtures();
		this.auth = attached.auth();
		this.load = attached.load();
	}

	Results.ServiceInfo serviceInfo(String db, Results.Consistency consistency, double cpuSeconds) throws IOException {
		return new Results.ServiceInfo(db, this.service.port, "default flags (production settings), " + this.javaHome,
				this.auth.mode, consistency, round(cpuSeconds, 1), round(this.service.peakRssMib(), 0));
	}

	void stopService(String db) throws Exception {
		this.service.close();
		String log = Files.readString(this.service.log);
		long errorLines = log.lines().filter((l) -> l.contains(" ERROR ")).count();
		if (errorLines > 0) {
			this.problems.add(errorLines + " ERROR lines in the service log " + this.service.log);
		}
		String which = db.contains("_scale_") ? db.substring(db.indexOf("_scale_") + 1) : "main";
		Files.copy(this.service.log, this.resultsDir.resolve(this.stamp + "-" + which + "-service.log"),
				StandardCopyOption.REPLACE_EXISTING);
		Path gcLog = Service.gcLog(this.service.log);
		this.notes.add("collections of the " + which + " service: " + Service.gcSummary(gcLog));
		if (Files.exists(gcLog)) {
			Files.copy(gcLog, this.resultsDir.resolve(this.stamp + "-" + which + "-service-gc.log"),
					StandardCopyOption.REPLACE_EXISTING);
		}
		boolean auditFailedHere = this.auditFailed;
		this.auditFailed = false;
		// The service checks a chunk cancelled at its query timeout again in halves, so its
		// audit passes; the slow chunk is still worth explaining on its own rows.
		long chunksCancelled = log.lines().filter((l) -> l.contains(AUDIT_CHUNK_CANCELLED)).count();
		if (chunksCancelled > 0) {
			this.notes.add("audit of the " + which + " database: " + chunksCancelled
					+ " chunk(s) cancelled at the query timeout and checked again in halves (bounds in "
					+ this.stamp + "-" + which + "-service.log)");
		}
		if ((KEEP_MAIN_DATABASE && which.equals("main")) || auditFailedHere || chunksCancelled > 0) {
			// Recorded apart from the run's databases so that run.sh's clean-up leaves it too.
			Files.writeString(this.runDir.resolve("kept"), db + "\n", StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
			this.notes.add("kept the " + which + " database for inspection ("
					+ (auditFailedHere ? "its audit through the service failed"
							: (chunksCancelled > 0) ? "a chunk of its audit was cancelled" : "WG_BENCH_KEEP_MAIN_DB")
					+ "): "
					+ db + "; drop it with: dropdb -h 127.0.0.1 -U postgres " + db);
		}
		else {
			Pg.dropDatabase(db);
		}
	}

	/**
	 * Whether the main database outlives the run, to examine what its points left behind
	 * (e.g. explain a slow statement on it); the scale databases are dropped unless their
	 * audit failed.
	 */
	static final boolean KEEP_MAIN_DATABASE = !System.getenv().getOrDefault("WG_BENCH_KEEP_MAIN_DB", "").isEmpty();

	/**
	 * Whether the audit through the service of the database about to be dropped failed.
	 * That database (the main one or the largest scale one) is then kept: what made a
	 * statement outlast its timeout is in its rows and statistics, and gone once it is
	 * dropped.
	 */
	boolean auditFailed;

	// ---------------------------------------------------------------- throughput

	/** The longest the service's warm-up may take, in slices of {@link #WARM_SLICE_SECONDS}. */
	static final int MAX_WARM_SECONDS = 240;

	static final int WARM_SLICE_SECONDS = 10;

	/**
	 * C2 needs minutes, not seconds, on this box before the service runs at its speed (its
	 * compile queue still held work 90 s into the load, and the service's CPU per item fell
	 * by a third between the first and the third minute): wrk at 32 connections in slices
	 * of 10 s, at least the mode's warm-up time, until a slice is no faster than the best
	 * before it by more than 3 %; then the JVM generator (its own JIT) and pgbench, none of
	 * it counted.
	 */
	void warmUp(Path lifecycle) throws Exception {
		int seconds = this.mode.warmSeconds();
		say("warm-up: wrk at 32 connections for %d-%d s (until its rate settles), 5 s JVM generator at 32 workers,"
				+ " 5 s pgbench at 32 clients", seconds, MAX_WARM_SECONDS);
		Wrk.Run w = null;
		double best = 0;
		List<Long> slices = new ArrayList<>();
		for (int spent = 0; spent < MAX_WARM_SECONDS; spent += WARM_SLICE_SECONDS) {
			// As for a point: a slice that drained its supply would read as settled.
			fresh(Math.max(QUIET_SERVICE_RATE, best * SUPPLY_FACTOR) * WARM_SLICE_SECONDS);
			w = this.wrk.lifecycle(32, WARM_SLICE_SECONDS, false);
			countErrors("warm-up (wrk)", w.errors() + w.socketErrors(), w.errorSamples());
			this.fixtures.retireReady(QUEUE);
			endStrandedLeases();
			slices.add(Math.round(w.itemsPerSecond()));
			boolean settled = w.itemsPerSecond() <= best * 1.03;
			best = Math.max(best, w.itemsPerSecond());
			if (settled && spent + WARM_SLICE_SECONDS >= seconds) {
				break;
			}
		}
		say("warm-up slices (items/s, %d s each): %s", WARM_SLICE_SECONDS, slices);
		fresh(QUIET_SERVICE_RATE * 5);
		Load.Tally t = this.load.closedLoop(32, 5, false);
		countErrors("warm-up (jvm)", t);
		this.fixtures.retireReady(QUEUE);
		endStrandedLeases();
		fresh(QUIET_RAW_RATE * 5 * 2);
		Pg.PgbenchResult r = this.pg.pgbench(lifecycle, 32, 5);
		this.fixtures.retireReady(QUEUE);
		endStrandedLeases();
		this.serviceRate = Math.max(w.itemsPerSecond(), t.itemsPerSecond());
		this.rawRate = r.tps();
		say("warm-up rates: wrk %.0f items/s, jvm %.0f items/s, raw %.0f items/s", w.itemsPerSecond(),
				t.itemsPerSecond(), r.tps());
	}

	/** Measured figures of one side of a point, one entry per repetition. */
	static final class SideRuns {

		final String generator;

		int clients;

		final List<Double> rates = new ArrayList<>();

		final List<Results.Latency> claim = new ArrayList<>();

		final List<Results.Latency> renew = new ArrayList<>();

		final List<Results.Latency> complete = new ArrayList<>();

		final List<Cpu.Cores> cpu = new ArrayList<>();

		long errors;

		long empty;

		SideRuns(String generator, int clients) {
			this.generator = generator;
			this.clients = clients;
		}

		/** Records one measured wrk run. */
		void add(Wrk.Run r) {
			this.rates.add(r.itemsPerSecond());
			this.claim.add(r.claimMs());
			this.renew.add(r.renewMs());
			this.complete.add(r.completeMs());
			this.cpu.add(r.cpu());
			this.errors += r.errors() + r.socketErrors();
			this.empty += r.emptyClaims();
		}

		Results.Side side() {
			return new Results.Side(this.generator, this.clients, Results.Spread.of(this.rates),
					Results.Latency.worst(this.claim), Results.Latency.worst(this.renew),
					Results.Latency.worst(this.complete), this.errors, this.empty, Results.CpuCores.of(this.cpu));
		}

	}

	/**
	 * Every point: raw (pgbench), wrk and the JVM generator, in an order that rotates at
	 * each repetition so drift in the machine hits all sides; each side gets its own supply,
	 * a warm-up run with the same generator at the same concurrency, then the measured run.
	 */
	void throughput(Map<String, Path> scripts) throws Exception {
		for (String variant : scripts.keySet()) {
			boolean renew = variant.equals("lifecycle_renew");
			for (int w : WORKERS) {
				if (renew && !this.mode.renewAllW() && w != 32) {
					continue;
				}
				int reps = (renew && !this.mode.renewAllW()) ? 1 : this.mode.reps(w);
				// Only where the answers take reads of their own (none since both statements
				// answer their item's view themselves).
				boolean withViews = !renew && w == 32 && this.sql.answersReadSeparately();
				SideRuns raw = new SideRuns("pgbench", w);
				SideRuns wrkSide = new SideRuns("wrk", w);
				SideRuns jvm = new SideRuns("jvm", w);
				SideRuns views = new SideRuns("pgbench+views", w);
				List<Double> load1 = new ArrayList<>();
				List<Double> probes = new ArrayList<>();
				double[] heap = new double[2];
				for (int rep = 0; rep < reps; rep++) {
					probes.add(probeMachine(variant + " W=" + w));
					List<SideRuns> order = new ArrayList<>(List.of(raw, wrkSide, jvm));
					java.util.Collections.rotate(order, -rep);
					if (withViews) {
						order.add(rep % order.size(), views);
					}
					for (SideRuns side : order) {
						load1.add(Double.parseDouble(loadAverage().split(" ")[0]));
						switch (side.generator) {
							case "pgbench" -> rawSide(side, scripts.get(variant), w, variant);
							case "pgbench+views" -> rawSide(side, this.viewsScript, w, "lifecycle_views");
							case "wrk" -> wrkSide(side, w, renew, heap);
							default -> jvmSide(side, w, renew, heap);
						}
					}
				}
				for (SideRuns side : List.of(wrkSide, jvm)) {
					if (side.empty > 0) {
						this.problems.add(variant + " W=" + w + " (" + side.generator + "): the queue drained ("
								+ side.empty + " empty claims); supply sizing is wrong, the point is not valid");
					}
				}
				Results.Side rawResult = raw.side();
				Results.Side wrkResult = wrkSide.side();
				Results.Side jvmResult = jvm.side();
				double rawMedian = rawResult.itemsPerSecond().median();
				Results.Spread probeSpread = Results.Spread.of(probes);
				Results.ThroughputPoint point = new Results.ThroughputPoint(variant, w, rawResult, wrkResult, jvmResult,
						withViews ? views.side() : null, round(wrkResult.itemsPerSecond().median() / rawMedian, 3),
						round(jvmResult.itemsPerSecond().median() / rawMedian, 3), Results.Spread.of(load1),
						(w == 128) ? round(heap[0], 0) : Double.NaN, (w == 128) ? round(heap[1], 0) : Double.NaN,
						probeSpread);
				this.throughput.add(point);
				say("%-15s W=%-3d raw %s  wrk %s (x%.2f, claim p99 %s ms, complete p99 %s ms)  jvm %s (x%.2f)  errors %d"
						+ "  machine probe %s s",
						variant, w, rawResult.itemsPerSecond().text(), wrkResult.itemsPerSecond().text(), point.ratio(),
						fmt(wrkResult.claimMs().p99()), fmt(wrkResult.completeMs().p99()),
						jvmResult.itemsPerSecond().text(), point.jvmRatio(), wrkResult.errors() + jvmResult.errors(),
						probeSpread.runs());
			}
		}
	}

	/**
	 * Runs the {@link MachineProbe} before a repetition of the named point (nothing else of
	 * the suite runs then) and records it.
	 */
	double probeMachine(String point) throws IOException {
		if (this.machineProbe == null) {
			this.machineProbe = new MachineProbe(this.runDir);
			// The first run reads gzip and its input from disk: 0.49 s against 0.38.
			this.machineProbe.cpuSeconds();
		}
		double seconds = this.machineProbe.cpuSeconds();
		this.machineProbes.computeIfAbsent(point, (key) -> new ArrayList<>()).add(seconds);
		return seconds;
	}

	/** A note when the machine was slower before some repetitions than before others. */
	void noteMachineSpeed() {
		Results.Spread all = Results.Spread
			.of(this.machineProbes.values().stream().flatMap(List::stream).filter((x) -> !x.isNaN()).toList());
		if (all.max() > 1.5 * all.min()) {
			this.notes.add(String.format(Locale.ROOT,
					"machine probe: the same work (gzip -1 of 16 MiB) took %.2f-%.2f s of CPU before the repetitions"
							+ " (median %.2f): the machine gave less per core at times; see machineProbeCpuSeconds",
					all.min(), all.max(), all.median()));
		}
	}

	void rawSide(SideRuns side, Path script, int w, String variant) throws Exception {
		int seconds = this.mode.pointSeconds();
		fresh(Math.max(QUIET_RAW_RATE, this.rawRate * SUPPLY_FACTOR) * (seconds + this.mode.pointWarmSeconds()));
		int clients = Math.min(w, this.pg.freeConnections());
		side.clients = clients;
		this.pg.pgbench(script, clients, this.mode.pointWarmSeconds());
		endStrandedLeases();
		AtomicLong pid = new AtomicLong();
		Pg.PgbenchResult r;
		Cpu.Cores cores;
		try (Cpu cpu = new Cpu(this.service.pid, pid::get, this.databases)) {
			r = this.pg.pgbench(script, clients, seconds, pid::set);
			cores = cpu.cores();
		}
		this.fixtures.retireReady(QUEUE);
		endStrandedLeases();
		side.rates.add(r.tps());
		side.cpu.add(cores);
		side.claim.add(Results.Latency.none());
		side.complete.add(Results.Latency.none());
		if (!variant.equals("lifecycle_views")) {
			this.rawRate = Math.max(this.rawRate, r.tps());
		}
		if (r.aborted() > 0) {
			this.problems.add("pgbench " + variant + " c=" + clients + ": " + r.aborted() + " aborted clients:\n"
					+ r.output());
		}
	}

	void wrkSide(SideRuns side, int w, boolean renew, double[] heap) throws Exception {
		int seconds = this.mode.pointSeconds();
		fresh(Math.max(QUIET_SERVICE_RATE, this.serviceRate * SUPPLY_FACTOR) * (seconds + this.mode.pointWarmSeconds()));
		Wrk.Run warm = this.wrk.lifecycle(w, this.mode.pointWarmSeconds(), renew);
		countErrors("wrk warm-up W=" + w, warm.errors() + warm.socketErrors(), warm.errorSamples());
		endStrandedLeases();
		Wrk.Run r;
		if (w == 128) {
			try (Service.HeapSampler sampler = this.service.new HeapSampler()) {
				r = this.wrk.lifecycle(w, seconds, renew);
				heap[0] = Math.max(heap[0], sampler.peakUsedMib);
				heap[1] = Math.max(heap[1], sampler.peakCommittedMib);
			}
		}
		else {
			r = this.wrk.lifecycle(w, seconds, renew);
		}
		this.fixtures.retireReady(QUEUE);
		endStrandedLeases();
		side.add(r);
		this.serviceRate = Math.max(this.serviceRate, r.itemsPerSecond());
		countErrors((renew ? "renew" : "lifecycle") + " W=" + w + " (wrk)", r.errors() + r.socketErrors(),
				r.errorSamples());
	}

	void jvmSide(SideRuns side, int w, boolean renew, double[] heap) throws Exception {
		int seconds = this.mode.pointSeconds();
		fresh(Math.max(QUIET_SERVICE_RATE, this.serviceRate * SUPPLY_FACTOR) * (seconds + this.mode.pointWarmSeconds()));
		countErrors("jvm warm-up W=" + w, this.load.closedLoop(w, this.mode.pointWarmSeconds(), renew));
		Load.Tally t;
		Cpu.Cores cores;
		try (Cpu cpu = new Cpu(this.service.pid, Cpu::self, this.databases)) {
			if (w == 128) {
				try (Service.HeapSampler sampler = this.service.new HeapSampler()) {
					t = this.load.closedLoop(w, seconds, renew);
					heap[0] = Math.max(heap[0], sampler.peakUsedMib);
					heap[1] = Math.max(heap[1], sampler.peakCommittedMib);
				}
			}
			else {
				t = this.load.closedLoop(w, seconds, renew);
			}
			cores = cpu.cores();
		}
		this.fixtures.retireReady(QUEUE);
		endStrandedLeases();
		side.rates.add(t.itemsPerSecond());
		side.claim.add(Results.Latency.of(t.claim));
		side.renew.add(Results.Latency.of(t.renew));
		side.complete.add(Results.Latency.of(t.complete));
		side.cpu.add(cores);
		side.errors += t.errors;
		side.empty += t.empty;
		countErrors((renew ? "renew" : "lifecycle") + " W=" + w + " (jvm)", t);
	}

	// ---------------------------------------------------------------- batch, peer, open loop

	/**
	 * Claims of 100 in one call, completed with one call, per wrk connection. Reports
	 * itself as not available while the service has no batch endpoints (404).
	 */
	Results.Batch batch() throws Exception {
		fresh(2000);
		Wrk.Run probe = this.wrk.batch(1, 1, BATCH_SIZE);
		this.fixtures.retireReady(QUEUE);
		endStrandedLeases();
		if (probe.notFound() > 0) {
			say("batch: not available (POST /claims/batch or POST /completions answered 404)");
			return new Results.Batch(false, "endpoint missing: POST /claims/batch or POST /completions answered 404",
					BATCH_SIZE, BATCH_CONNECTIONS, Results.Spread.none(), Results.Latency.none(), Results.Latency.none(),
					0, Results.CpuCores.of(List.of()));
		}
		Results.Side reps = repeatAt32("batch", QUIET_BATCH_RATE,
				(seconds) -> this.wrk.batch(BATCH_CONNECTIONS, seconds, BATCH_SIZE));
		Results.Batch b = new Results.Batch(true, null, BATCH_SIZE, BATCH_CONNECTIONS, reps.itemsPerSecond(),
				reps.claimMs(), reps.completeMs(), reps.errors(), reps.cpuCores());
		say("batch: %s items/s (%d connections, %d per call)", b.itemsPerSecond().text(), BATCH_CONNECTIONS, BATCH_SIZE);
		return b;
	}

	/**
	 * The lifecycle at 32 connections as a worker that asks for its next item with each
	 * completion runs it (one request per item); the same supply and repetitions as the
	 * lifecycle's wrk side. Its repetitions run in turns with the peer's (see
	 * {@link #peer}); here only those the peer did not take, all of them when graphile-worker
	 * is not available.
	 */
	Results.Chained chained(Repetitions reps) throws Exception {
		while (reps.count() < this.mode.repsAt32()) {
			reps.once();
		}
		Results.Side r = reps.side();
		Results.Chained c = new Results.Chained(32, r.itemsPerSecond(), r.claimMs(), r.completeMs(), r.errors(),
				r.cpuCores());
		say("chained: %s items/s (32 connections, the next claim with each completion)", c.itemsPerSecond().text());
		return c;
	}

	Repetitions chainedRepetitions() {
		return new Repetitions("chained", Math.max(QUIET_SERVICE_RATE, this.serviceRate),
				(seconds) -> this.wrk.chained(32, seconds));
	}

	/** One wrk point, run for the given seconds. */
	interface WrkPoint {

		Wrk.Run run(int seconds) throws Exception;

	}

	/**
	 * The repetitions at 32 of a wrk point with a supply of its own, all in a row.
	 */
	Results.Side repeatAt32(String name, double quietRate, WrkPoint point) throws Exception {
		Repetitions reps = new Repetitions(name, quietRate, point);
		for (int rep = 0; rep < this.mode.repsAt32(); rep++) {
			reps.once();
		}
		return reps.side();
	}

	/**
	 * Repetitions of one wrk point at 32, taken one at a time: each a fresh supply sized by
	 * the best rate seen so far (at least the quiet rate), a warm-up run, then the measured
	 * run; what a run leaves ready or leased is retired before the next.
	 */
	final class Repetitions {

		final String name;

		final WrkPoint point;

		double best;

		private final SideRuns runs = new SideRuns("wrk", 32);

		Repetitions(String name, double quietRate, WrkPoint point) {
			this.name = name;
			this.best = quietRate;
			this.point = point;
		}

		int count() {
			return this.runs.rates.size();
		}

		/** The measured rate of one repetition, in the order they ran. */
		double rate(int rep) {
			return this.runs.rates.get(rep);
		}

		/** What the repetitions so far measured, as the report shows a point. */
		Results.Side side() {
			return this.runs.side();
		}

		void once() throws Exception {
			probeMachine(this.name);
			fresh(this.best * SUPPLY_FACTOR * (Bench.this.mode.pointSeconds() + Bench.this.mode.pointWarmSeconds()));
			this.point.run(Bench.this.mode.pointWarmSeconds());
			endStrandedLeases();
			Wrk.Run r = this.point.run(Bench.this.mode.pointSeconds());
			Bench.this.fixtures.retireReady(QUEUE);
			endStrandedLeases();
			this.runs.add(r);
			this.best = Math.max(this.best, r.itemsPerSecond());
			countErrors(this.name, r.errors() + r.socketErrors(), r.errorSamples());
			if (r.emptyClaims() > 0) {
				Bench.this.problems
					.add(this.name + ": the queue drained (" + r.emptyClaims() + " empty claims); not valid");
			}
		}

	}

	/**
	 * graphile-worker, default mode, 32 concurrent jobs, on its own fresh database, in turns
	 * with the service's wrk lifecycle and chained point at 32: the lifecycle point runs half
	 * an hour earlier in a full run, and the machine's speed has changed by half in that
	 * time. A turn runs graphile-worker, the lifecycle, the chained point, and the next turn
	 * the other way round, so that each side is as near the peer as the other over two
	 * turns.
	 */
	Results.Peer peer(String peerDb, Repetitions chained) throws Exception {
		Peer peerRunner = new Peer(this.benchDir.resolve("peer"));
		String why = peerRunner.install();
		if (why != null) {
			this.problems.add("peer: " + why);
			return new Results.Peer(false, why, null, null, PEER_CONCURRENCY, 0, Results.Spread.none(), Double.NaN, 0, 0,
					Results.CpuCores.of(List.of()), null, Results.Spread.none(), Results.Spread.none());
		}
		List<Double> rates = new ArrayList<>();
		List<Cpu.Cores> cpu = new ArrayList<>();
		SideRuns service = new SideRuns("wrk", PEER_CONCURRENCY);
		List<Double> ratios = new ArrayList<>();
		List<Double> chainedRatios = new ArrayList<>();
		Peer.Run last = null;
		long failed = 0;
		for (int rep = 0; rep < this.mode.peerReps(); rep++) {
			boolean serviceFirst = rep % 2 == 1;
			if (serviceFirst) {
				chained.once();
				serviceBesidePeer(service);
			}
			probeMachine("peer");
			Pg.createDatabase(peerDb);
			Files.writeString(this.runDir.resolve("databases"), peerDb + "\n", StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
			List<String> dbs = new ArrayList<>(this.databases);
			dbs.add(peerDb);
			long jobs = (long) (Math.max(QUIET_PEER_RATE, this.peerRate * SUPPLY_FACTOR)
					* (this.mode.peerWarmSeconds() + this.mode.peerSeconds()));
			try {
				last = peerRunner.run(peerDb, PEER_CONCURRENCY, jobs, this.mode.peerWarmSeconds(),
						this.mode.peerSeconds(), this.service.pid, dbs);
			}
			finally {
				Pg.dropDatabase(peerDb);
			}
			if (!serviceFirst) {
				serviceBesidePeer(service);
				chained.once();
			}
			rates.add(last.jobsPerSecond());
			ratios.add(service.rates.get(rep) / last.jobsPerSecond());
			chainedRatios.add(chained.rate(rep) / last.jobsPerSecond());
			cpu.add(last.cpu());
			failed += last.failed();
			this.peerRate = Math.max(this.peerRate, last.jobsPerSecond());
			if (last.drained()) {
				this.problems.add("peer: the jobs ran out within the window; the point is not valid");
			}
		}
		if (failed > 0) {
			this.problems.add("peer: " + failed + " jobs failed");
		}
		if (service.empty > 0) {
			this.problems.add("peer: the service's queue drained beside it (" + service.empty
					+ " empty claims); the point is not valid");
		}
		Results.Peer p = new Results.Peer(true, null, last.library(), last.mode(), PEER_CONCURRENCY,
				last.maxPoolSize(), Results.Spread.of(rates), last.windowSeconds(), this.mode.peerWarmSeconds(), failed,
				Results.CpuCores.of(cpu), service.side(), Results.Spread.of(ratios), Results.Spread.of(chainedRatios));
		say("peer %s at %d: %s jobs/s; in turns with it, wrk lifecycle %s items/s (ratio per turn %s), chained "
				+ "ratio per turn %s", p.library(), PEER_CONCURRENCY, p.jobsPerSecond().text(),
				p.serviceBeside().itemsPerSecond().text(), p.ratioPerTurn().runs(), p.chainedRatioPerTurn().runs());
		return p;
	}

	/** One repetition of the wrk lifecycle at the peer's concurrency, for the peer's ratio. */
	void serviceBesidePeer(SideRuns service) throws Exception {
		probeMachine("peer (wrk lifecycle in turns)");
		wrkSide(service, PEER_CONCURRENCY, false, new double[2]);
	}

	/** 500 claims/s due from 32 wrk connections, each followed by its complete. */
	Results.OpenLoop openLoopWrk() throws Exception {
		int workers = 32;
		double rate = 500;
		List<Double> achieved = new ArrayList<>();
		List<Results.Latency> claims = new ArrayList<>();
		List<Results.Latency> completes = new ArrayList<>();
		List<Cpu.Cores> cpu = new ArrayList<>();
		long errors = 0;
		long empty = 0;
		long unsent = 0;
		for (int rep = 0; rep < this.mode.openReps(); rep++) {
			fresh(rate * (this.mode.openSeconds() + this.mode.pointWarmSeconds()) + 2000);
			this.wrk.openLoop(workers, rate, this.mode.pointWarmSeconds());
			endStrandedLeases();
			Wrk.Run r = this.wrk.openLoop(workers, rate, this.mode.openSeconds());
			this.fixtures.retireReady(QUEUE);
			endStrandedLeases();
			achieved.add(r.itemsPerSecond());
			claims.add(r.claimMs());
			completes.add(r.completeMs());
			cpu.add(r.cpu());
			errors += r.errors() + r.socketErrors();
			empty += r.emptyClaims();
			unsent += Math.max(0, r.due() - r.sent());
			countErrors("open loop (wrk)", r.errors() + r.socketErrors(), r.errorSamples());
		}
		if (unsent > 0) {
			this.notes.add("open loop (wrk): the service did not keep up with 500/s: " + unsent
					+ " claims were still unsent when the window closed (latencies are of those sent, from when due)");
		}
		Results.OpenLoop o = new Results.OpenLoop("wrk", rate, workers, this.mode.openSeconds(),
				Results.Spread.of(achieved), Results.Latency.worst(claims), Results.Latency.worst(completes), errors,
				empty, unsent, Results.CpuCores.of(cpu));
		say("open loop 500/s, 32 wrk connections: claim %s ms, complete %s ms (p50/p99/p99.9), unsent %d, errors %d",
				o.claimMs().text(), o.completeMs().text(), unsent, errors);
		return o;
	}

	/** The same offered load from the JVM generator (the realistic client). */
	Results.OpenLoop openLoopJvm() throws Exception {
		int workers = 32;
		double rate = 500;
		Load.Tally pooled = new Load.Tally();
		List<Double> achieved = new ArrayList<>();
		List<Cpu.Cores> cpu = new ArrayList<>();
		long unsent = 0;
		for (int rep = 0; rep < this.mode.openReps(); rep++) {
			fresh(rate * this.mode.openSeconds() + 2000);
			Load.Tally t;
			try (Cpu meter = new Cpu(this.service.pid, Cpu::self, this.databases)) {
				t = this.load.openLoop(workers, rate, this.mode.openSeconds());
				cpu.add(meter.cores());
			}
			this.fixtures.retireReady(QUEUE);
			countErrors("open loop (jvm)", t);
			pooled.merge(t);
			achieved.add(t.itemsPerSecond());
			unsent += t.unsent;
		}
		if (unsent > 0) {
			this.notes.add("open loop (jvm): " + unsent + " claims were still unsent when the window closed");
		}
		Results.OpenLoop o = new Results.OpenLoop("jvm", rate, workers, this.mode.openSeconds(),
				Results.Spread.of(achieved), Results.Latency.of(pooled.claim), Results.Latency.of(pooled.complete),
				pooled.errors, pooled.empty, unsent, Results.CpuCores.of(cpu));
		say("open loop 500/s, 32 JVM workers: claim %s ms, complete %s ms (p50/p99/p99.9), errors %d",
				o.claimMs().text(), o.completeMs().text(), o.errors());
		return o;
	}

	// ---------------------------------------------------------------- graph, reaper, scale

	/** Claim/complete down a chain of 1,000: each completion releases the next link. */
	Results.Chain chain() throws Exception {
		int n = 1000;
		List<Double> seconds = new ArrayList<>();
		Load.Tally pooled = new Load.Tally();
		for (int rep = 0; rep < this.mode.graphReps(); rep++) {
			String queue = "bench-chain-" + rep;
			this.fixtures.chain(queue, n);
			this.pg.vacuumHot();
			List<String> titles = new ArrayList<>();
			Load.Tally t = this.load.sequential("bench-chain", queue, n, titles);
			countErrors("chain", t);
			for (int i = 0; i < titles.size(); i++) {
				if (!("chain " + (i + 1)).equals(titles.get(i))) {
					this.problems.add("chain: claim " + (i + 1) + " got '" + titles.get(i) + "'");
					break;
				}
			}
			if (titles.size() != n || t.empty > 0) {
				this.problems.add("chain: " + titles.size() + " of " + n + " links claimed, " + t.empty + " empty claims");
			}
			seconds.add(t.seconds());
			pooled.merge(t);
		}
		Results.Chain c = new Results.Chain(n, Results.Spread.of(seconds), Results.Latency.of(pooled.claim),
				Results.Latency.of(pooled.complete), pooled.errors);
		say("chain of %d: %s s end to end; per link claim %s ms, complete %s ms", n, c.seconds().text(),
				c.claimMs().text(), c.completeMs().text());
		return c;
	}

	/** 10,000 dependents on one item: the completion that releases them all. */
	Results.FanIn fanIn() throws Exception {
		int n = 10_000;
		List<Double> ms = new ArrayList<>();
		for (int rep = 0; rep < this.mode.graphReps(); rep++) {
			String hubs = "bench-fanin-" + rep;
			String dependents = "bench-fanout-" + rep;
			this.fixtures.fanIn(hubs, dependents, n);
			this.pg.vacuumHot();
			Load.Claimed hub = this.load.claim("bench-fanin", hubs);
			if (hub.status() != 201) {
				this.serviceErrors++;
				this.problems.add("fan-in: claiming the hub -> " + hub.status() + " " + Load.abbreviate(hub.body()));
				continue;
			}
			long t0 = System.nanoTime();
			var r = this.load.complete("bench-fanin", hub.leaseId(), hub.epoch());
			double took = (System.nanoTime() - t0) / 1e6;
			if (r.statusCode() != 200) {
				this.serviceErrors++;
				this.problems.add("fan-in: completing the hub -> " + r.statusCode() + " " + Load.abbreviate(r.body()));
				continue;
			}
			long ready = this.pg.count("select count(*) from work_items where queue = '" + dependents
					+ "' and status = 'ready'");
			long queued = this.pg.count("select count(*) from ready_items where queue = '" + dependents + "'");
			if (ready != n || queued != n) {
				this.problems.add("fan-in: after the completion " + ready + " dependents ready, " + queued + " queued, of "
						+ n);
			}
			ms.add(took);
			this.fixtures.retireReady(dependents);
		}
		Results.FanIn f = new Results.FanIn(n, Results.Spread.of(ms));
		say("fan-in of %d: the releasing completion took %s ms", n, f.completeMs().text());
		return f;
	}

	/** Blocks this database's backends read from outside shared_buffers. */
	static final String BLOCKS_READ = "select blks_read from pg_stat_database where datname = current_database()";

	/** Checkpoints the server has completed, timed or requested. */
	static final String CHECKPOINTS = "select checkpoints_timed + checkpoints_req from pg_stat_bgwriter";

	/**
	 * Autovacuum and autoanalyze runs finished on the tables a burst of expiries churns:
	 * the difference over a repetition says whether one ran beside it.
	 */
	static final String AUTOVACUUMS_OF_HOT_TABLES = """
			select coalesce(sum(autovacuum_count + autoanalyze_count), 0) from pg_stat_user_tables
			where relname in ('work_items', 'leases', 'lease_history', 'ready_items')
			""";

	/**
	 * 10,000 leases expiring at once: from their expiry until all are recorded and ready.
	 * Each repetition also records what could make it slow: a checkpoint during it, the WAL
	 * it wrote, dead rows in the tables the reaper reads.
	 */
	Results.Reaper reaper() throws Exception {
		int n = 10_000;
		List<Double> seconds = new ArrayList<>();
		List<Results.ReaperRun> runs = new ArrayList<>();
		for (int rep = 0; rep < this.mode.reaperReps(); rep++) {
			String queue = "bench-reaper-" + rep;
			this.pg.vacuumHot();
			long autoBefore = this.pg.count(AUTOVACUUMS_OF_HOT_TABLES);
			double expiresAt = this.fixtures.leasedExpiringTogether(queue, n, 2);
			String[] before = this.pg.sql("""
					select (%s) || ' ' || pg_current_wal_lsn()::text
					""".formatted(CHECKPOINTS)).split(" ");
			double[] at;
			Cpu.Cores cores;
			try (Cpu cpu = new Cpu(this.service.pid, () -> 0, this.databases)) {
				at = this.fixtures.awaitReaped(queue, n, 120);
				cores = cpu.cores();
			}
			String[] after = this.pg.sql("""
					select (%s)
					    || ' ' || pg_wal_lsn_diff(pg_current_wal_lsn(), '%s')::bigint
					    || ' ' || (select n_dead_tup from pg_stat_user_tables where relname = 'leases')
					    || ' ' || (select n_dead_tup from pg_stat_user_tables where relname = 'work_items')
					""".formatted(CHECKPOINTS, before[1])).split(" ");
			long autovacuums = this.pg.count(AUTOVACUUMS_OF_HOT_TABLES) - autoBefore;
			seconds.add(at[1] - expiresAt);
			runs.add(new Results.ReaperRun(round(at[1] - expiresAt, 3), round(at[0] - expiresAt, 3),
					!after[0].equals(before[0]), Long.parseLong(after[1]), Long.parseLong(after[2]),
					Long.parseLong(after[3]), autovacuums, cores));
			long recorded = this.fixtures.expiredInHistory(queue);
			if (recorded != n) {
				this.problems.add("reaper: " + recorded + " of " + n + " leases in lease_history as expired");
			}
			this.fixtures.retireReady(queue);
		}
		Results.Reaper r = new Results.Reaper(n, Results.Spread.of(seconds), "1s (default)", runs);
		say("reaper: %d leases expiring together recorded and ready again %s s after expiry; %s", n,
				r.secondsFromExpiry().text(), runs);
		return r;
	}

	/** What one scale size measured over its turns. */
	static final class ScaleTally {

		final List<Double> claimP50 = new ArrayList<>();

		final List<Double> completeP50 = new ArrayList<>();

		final Load.Tally pooled = new Load.Tally();

		double fillSeconds;

		long blocksReadBefore;

	}

	/**
	 * PostgreSQL's backends report their statistics at most once a second while busy and
	 * within ten seconds once idle: a counter read sooner misses the last of the work.
	 */
	static final Duration STATISTICS_FLUSHED = Duration.ofSeconds(11);

	/**
	 * Claim latency as the table grows: at each size most items are completed or blocked
	 * and a fixed supply is ready; one worker claims and completes (per-claim cost, no
	 * queueing), the same number of claims at every size.
	 *
	 * <p>
	 * Each size has its own service and database, and the sizes are measured in turns, a
	 * repetition of each in every round, as the throughput points rotate their sides: one
	 * worker's latency on this machine drifts by a third within a minute, and the same
	 * 10^6-item table gave claim p50s from 2.4 down to 1.4 ms in the minute after its fill,
	 * so sizes measured one after the other compared the moments more than the tables.
	 */
	Results.Scale scale(String mainDb, String adminToken) throws Exception {
		long[] sizeList = this.mode.sizes();
		int n = sizeList.length;
		List<String> dbs = new ArrayList<>();
		List<Service> services = new ArrayList<>();
		for (long size : sizeList) {
			dbs.add(mainDb + "_scale_" + size);
			services.add(launch(dbs.getLast(), adminToken));
		}
		List<Attached> sides = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			sides.add(attach(services.get(i), dbs.get(i), adminToken, OTHER_WORKERS));
		}
		long supply = (long) this.mode.scaleClaims() * this.mode.scaleReps() + SCALE_SIZE_WARM_LIFECYCLES;
		List<ScaleTally> tallies = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			ScaleTally tally = new ScaleTally();
			tally.fillSeconds = warmAndFill(sizeList[i], sides.get(i), supply);
			tallies.add(tally);
		}
		Thread.sleep(STATISTICS_FLUSHED);
		for (int i = 0; i < n; i++) {
			tallies.get(i).blocksReadBefore = sides.get(i).pg().count(BLOCKS_READ);
		}
		Pg server = sides.getFirst().pg();
		long checkpointsBefore = server.count(CHECKPOINTS);
		for (int rep = 0; rep < this.mode.scaleReps(); rep++) {
			for (int k = 0; k < n; k++) {
				// Each round starts with another size, so none is always measured first.
				int i = (rep + k) % n;
				Load.Tally t = sides.get(i).load().sequential("bench-scale", null, this.mode.scaleClaims(),
						new ArrayList<>());
				countErrors("scale " + sizeList[i], t);
				tallies.get(i).claimP50.add(t.claim.percentileMs(50));
				tallies.get(i).completeP50.add(t.complete.percentileMs(50));
				tallies.get(i).pooled.merge(t);
			}
		}
		long checkpointsDuring = server.count(CHECKPOINTS) - checkpointsBefore;
		if (checkpointsDuring > 0) {
			this.notes.add("scale: " + checkpointsDuring + " checkpoint(s) ended while the sizes were measured");
		}
		Thread.sleep(STATISTICS_FLUSHED);
		Map<String, Results.ScaleSize> sizes = new LinkedHashMap<>();
		for (int i = 0; i < n; i++) {
			Attached side = sides.get(i);
			ScaleTally tally = tallies.get(i);
			Load.Tally all = tally.pooled;
			long blocksRead = side.pg().count(BLOCKS_READ) - tally.blocksReadBefore;
			Results.ScaleSize point = new Results.ScaleSize(side.pg().count("select count(*) from work_items"),
					supply, round(tally.fillSeconds, 1), Results.Spread.of(tally.claimP50),
					Results.Spread.of(tally.completeP50), Results.Latency.of(all.claim),
					Results.Latency.of(all.complete), all.errors, checkpointsDuring,
					round((double) blocksRead / Math.max(1, all.items), 1));
			sizes.put(String.valueOf(sizeList[i]), point);
			say("scale %,d items: claim p50 %s ms, complete p50 %s ms, claim %s ms, complete %s ms, %.1f blocks read"
					+ " from outside shared_buffers per item", point.items(), point.claimP50MsPerRun().text(),
					point.completeP50MsPerRun().text(), point.claimMs().text(), point.completeMs().text(),
					point.blocksReadPerItem());
		}
		Results.ScaleSize first = sizes.get(String.valueOf(sizeList[0]));
		Results.ScaleSize last = sizes.get(String.valueOf(sizeList[n - 1]));
		Results.Consistency consistency = null;
		Results.ServiceInfo info = null;
		for (int i = n - 1; i >= 0; i--) {
			Attached side = sides.get(i);
			enter(side);
			if (i == n - 1) {
				// The audit of the largest table, the one that could be wrong in ways the
				// smaller ones cannot.
				consistency = consistency();
				info = serviceInfo(side.db(), consistency, side.service().cpuSeconds());
			}
			stopService(side.db());
		}
		return new Results.Scale(sizes,
				round(last.claimP50MsPerRun().median() / first.claimP50MsPerRun().median(), 3),
				round(last.completeP50MsPerRun().median() / first.completeP50MsPerRun().median(), 3),
				"median p50 (claim; complete) at the largest size / at the smallest, the sizes measured in turns",
				consistency, info);
	}

	/** Warms a scale size's service up, then fills its table; returns the fill's seconds. */
	double warmAndFill(long size, Attached side, long supply) throws Exception {
		// Cold, a service's first claims measure the JIT compiler. The warm-up's items stay,
		// completed, as the bulk history does: the smallest size holds about 4,400 items.
		side.fixtures().readySupply(QUEUE, SCALE_WARM_LIFECYCLES);
		long warmStart = System.nanoTime();
		countErrors("scale warm-up " + size,
				side.load().sequential("bench-scale", null, SCALE_WARM_LIFECYCLES, new ArrayList<>()));
		long t0 = System.nanoTime();
		long existing = side.pg().count("select count(*) from work_items");
		long history = Math.max(0, size - existing - supply);
		long blocked = history / 20; // 5% blocked, 95% completed
		side.fixtures().bulkHistory(history - blocked, blocked);
		side.fixtures().readySupply(QUEUE, supply);
		side.pg().sql("vacuum (analyze) ready_items, leases; analyze work_items, dependencies, lease_history;");
		// The fill writes hundreds of MB of WAL, enough to start a checkpoint that then
		// flushes its pages for ten to twenty seconds: flushed here instead, before any size
		// is measured.
		side.pg().sql("checkpoint;");
		double fillSeconds = (System.nanoTime() - t0) / 1e9;
		side.load().sequential("bench-scale", null, SCALE_SIZE_WARM_LIFECYCLES, new ArrayList<>());
		say("scale %,d: service pid %d on :%d warmed up (%,d lifecycles in %.0f s), filled in %.0f s", size,
				side.service().pid, side.service().port, SCALE_WARM_LIFECYCLES, (t0 - warmStart) / 1e9, fillSeconds);
		return fillSeconds;
	}

	/** What the service logs for an audit chunk cancelled at its query timeout. */
	static final String AUDIT_CHUNK_CANCELLED = "was cancelled at the query timeout";

	/** GET /actuator/consistency must report no inconsistency. */
	Results.Consistency consistency() throws Exception {
		long t0 = System.nanoTime();
		boolean ok;
		String via = "GET /actuator/consistency";
		this.auditFailed = false;
		try {
			String body = this.load.get("/actuator/consistency");
			ok = body.contains("\"consistent\":true");
			if (!ok) {
				this.problems.add("consistency audit: " + Load.abbreviate(body));
			}
		}
		catch (IOException ex) {
			// The service audits in chunks of ids so that no statement outlasts its 25 s query
			// timeout; should it still fail, the same statement runs through psql over the
			// whole id range, so the check still happens.
			this.auditFailed = true;
			this.problems.add("GET /actuator/consistency failed (" + Load.abbreviate(ex.getMessage())
					+ "); ran the audit statement through psql instead");
			String found = this.pg.sql(Sql.bind(this.sql.audit, Map.of("limit", "100", "after",
					"'00000000-0000-0000-0000-000000000000'::uuid", "upTo", "'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid"))
					+ ";");
			ok = found.isEmpty();
			via = "psql";
			if (!ok) {
				this.problems.add("consistency audit: " + Load.abbreviate(found));
			}
		}
		Results.Consistency c = new Results.Consistency(ok, via, round((System.nanoTime() - t0) / 1e9, 1));
		say("consistency audit: %s (%.1f s)", ok, c.seconds());
		return c;
	}

	// ---------------------------------------------------------------- helpers

	/** A fresh supply of ready items on a vacuumed queue: every point starts equal. */
	void fresh(double supply) throws Exception {
		this.fixtures.readySupply(QUEUE, Math.max(2000, (long) supply));
		this.pg.vacuumHot();
	}

	/**
	 * pgbench stops at -T between statements and wrk in the middle of a cycle, so a client
	 * can leave a claimed item leased; such leases are completed here with the same effect
	 * as the service's complete, so they neither linger nor expire into a later point.
	 * Requests still in flight when a generator stops may be ending some of them: the items
	 * are locked first, in id order as the service locks them, so the two wait for each
	 * other instead of deadlocking (lease, then item here; item, then lease there).
	 */
	void endStrandedLeases() throws Exception {
		String stranded = """
				(worker_id like 'raw-%' or worker_id like 'wrk-%'
				    or (worker_id like 'bench-%' and worker_id <> 'bench-reaper'))""";
		this.pg.sql("""
				begin;
				select count(*) from (
				    select w.id from leases l join work_items w on w.id = l.item_id
				    where %1$s
				    order by w.id
				    for no key update of w
				) locked;
				with ended as (
				    delete from leases
				    where %1$s
				    returning *
				), recorded as (
				    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
				        ended_at, outcome, reason)
				    select id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at, now(), 'completed', null
				    from ended returning item_id
				)
				update work_items w set status = 'completed', closed_at = now(), updated_at = now()
				from recorded r where w.id = r.item_id;
				commit;
				""".formatted(stranded));
	}

	Results.Run results(String summary, String table) {
		return new Results.Run(this.mode.name(), this.startedAt,
				machine(), this.serviceInfo, this.throughput, this.batch, this.chained, this.peer, this.openLoop, this.openLoopJvm,
				this.chain, this.fanIn, this.reaper, this.scale, round((System.nanoTime() - this.started) / 1e9, 0),
				this.serviceErrors, this.problems, this.notes, summary, table, this.machineProbes);
	}

	Results.Machine machine() {
		Pg postgres = new Pg("postgres");
		try {
			return new Results.Machine(Runtime.getRuntime().availableProcessors(), cpuModel(),
					postgres.sql("select version()"), postgres.sql("show autovacuum"),
					postgres.sql("show synchronous_commit"), this.loadBefore, loadAverage(), memoryMonitor());
		}
		catch (IOException | InterruptedException ex) {
			return new Results.Machine(Runtime.getRuntime().availableProcessors(), cpuModel(), "unknown", "unknown",
					"unknown", this.loadBefore, loadAverage(), memoryMonitor());
		}
	}

	/** Writes what is measured so far, so a run that is killed still leaves its evidence. */
	void checkpoint() throws IOException {
		Files.writeString(this.resultsDir.resolve(this.stamp + "-" + this.mode.name() + ".partial.json"),
				Json.write(results(null, null)) + "\n");
	}

	void countErrors(String where, Load.Tally t) {
		countErrors(where, t.errors, t.errorSamples.stream().toList());
	}

	void countErrors(String where, long errors, List<String> samples) {
		this.serviceErrors += errors;
		if (errors > 0) {
			this.problems.add(where + ": " + errors + " error responses, e.g. "
					+ String.join(" | ", samples.stream().limit(3).toList()));
		}
	}

	static String fmt(double x) {
		return Results.fmt(x);
	}

	static double round(double x, int digits) {
		return Results.round(x, digits);
	}

	/** The processor's model name as the kernel reports it. */
	static String cpuModel() {
		try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
			return lines.filter((line) -> line.startsWith("model name"))
				.map((line) -> line.substring(line.indexOf(':') + 1).strip())
				.findFirst()
				.orElse("unknown");
		}
		catch (IOException | UncheckedIOException ex) {
			return "unknown";
		}
	}

	/**
	 * The kernel's DAMON monitors that are on, as "operations action every sample_us" each (e.g.
	 * "paddr pageout every 500000 us"), "off" when none is, "none" without DAMON's sysfs interface.
	 */
	static String memoryMonitor() {
		Path admin = Path.of("/sys/kernel/mm/damon/admin/kdamonds");
		if (!Files.isDirectory(admin)) {
			return "none";
		}
		List<String> on = new ArrayList<>();
		try (var kdamonds = Files.list(admin)) {
			for (Path kdamond : kdamonds.filter(Files::isDirectory).sorted().toList()) {
				if (!"on".equals(sysfs(kdamond.resolve("state")))) {
					continue;
				}
				Path context = kdamond.resolve("contexts/0");
				on.add(sysfs(context.resolve("operations")) + " " + sysfs(context.resolve("schemes/0/action"))
						+ " every " + sysfs(context.resolve("monitoring_attrs/intervals/sample_us")) + " us");
			}
		}
		catch (IOException | UncheckedIOException ex) {
			return "unknown";
		}
		return on.isEmpty() ? "off" : String.join("; ", on);
	}

	private static String sysfs(Path file) {
		try {
			return Files.readString(file).strip();
		}
		catch (IOException ex) {
			return "?";
		}
	}

	static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg")).strip();
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

	static final long T0 = System.nanoTime();

	static void say(String format, Object... args) {
		System.out.println(String.format(Locale.ROOT, "[%5.0fs] ", (System.nanoTime() - T0) / 1e9)
				+ String.format(Locale.ROOT, format, args));
		System.out.flush();
	}

	// ---------------------------------------------------------------- report

	int report() throws IOException {
		Results.Summary summary = Report.summary(this.throughput, this.openLoop, this.scale, this.reaper, this.peer,
				this.batch, this.chained, this.serviceErrors);
		noteMachineSpeed();
		Results.Run partial = results(summary.line(), null);
		String table = Report.table(partial, summary);
		Results.Run run = results(summary.line(), table);
		Path out = this.resultsDir.resolve(this.stamp + "-" + this.mode.name() + ".json");
		Files.writeString(out, Json.write(run) + "\n");
		Files.deleteIfExists(this.resultsDir.resolve(this.stamp + "-" + this.mode.name() + ".partial.json"));
		System.out.print(table);
		System.out.println("results: " + out);
		System.out.println(summary.line());
		return (this.serviceErrors == 0 && this.problems.isEmpty()) ? 0 : 1;
	}

}
