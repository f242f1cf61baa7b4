import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Work Graph's benchmark suite (bench/run.sh starts it). Measures, in one run and under
 * equal conditions: the raw PostgreSQL ceiling of the service's own claim/complete
 * statements (pgbench), the service over HTTP at the same concurrency, latency at a fixed
 * offered rate, claim cost as the table grows, deep graphs, and the reaper. Prints a
 * table and one summary line, writes the figures as JSON.
 */
public class Bench {

	/** How much of everything to do; --quick must finish in under five minutes. */
	record Mode(String name, int pointSeconds, int warmSeconds, int repsAt32, int repsElsewhere, boolean renewAllW,
			int openSeconds, int openReps, long[] sizes, int scaleClaims, int scaleReps, int graphReps, int reaperReps) {

		int reps(int workers) {
			return (workers == 32) ? this.repsAt32 : this.repsElsewhere;
		}

	}

	static final Mode QUICK = new Mode("quick", 4, 6, 3, 1, false, 10, 1, new long[] { 1_000, 100_000, 1_000_000 },
			60, 3, 1, 1);

	static final Mode FULL = new Mode("full", 10, 20, 3, 3, true, 30, 3,
			new long[] { 1_000, 100_000, 10_000_000 }, 150, 3, 3, 3);

	static final int[] WORKERS = { 1, 8, 32, 128 };

	static final String QUEUE = "default";

	final Mode mode;

	final Path javaHome;

	final Path jar;

	final Path runDir;

	final Path resultsDir;

	final String stamp;

	final Map<String, Object> json = new LinkedHashMap<>();

	/** Failed checks and error answers: the run exits non-zero. */
	final List<String> problems = new ArrayList<>();

	/** Things the reader must know about the figures, which are not failures. */
	final List<String> notes = new ArrayList<>();

	long serviceErrors;

	Pg pg;

	Fixtures fixtures;

	Service service;

	Load load;

	Sql sql;

	/** Diagnostic raw script: the lifecycle plus the response-view reads (W=32 only). */
	Path viewsScript;

	/** Our service processes and databases: what is not ours counts as the neighbours' load. */
	List<Long> ours = List.of();

	List<String> databases = List.of();

	/** Best rate seen per side, to size each point's supply generously. */
	double rawRate = 4000;

	double serviceRate = 2000;

	/**
	 * Ready items per point: this many times (best rate seen) x (point length), and never
	 * less than the rates a quiet machine of this kind reaches allow for (a neighbour's
	 * load can stop mid-run, and a drained queue must not be measured as throughput).
	 */
	static final double SUPPLY_FACTOR = 3;

	static final double QUIET_RAW_RATE = 5000;

	static final double QUIET_SERVICE_RATE = 2500;

	Bench(Mode mode, Path javaHome, Path jar, Path runDir, Path resultsDir) {
		this.mode = mode;
		this.javaHome = javaHome;
		this.jar = jar;
		this.runDir = runDir;
		this.resultsDir = resultsDir;
		this.stamp = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC).format(Instant.now());
	}

	public static void main(String[] args) throws Exception {
		Mode mode = FULL;
		Path javaHome = Path.of(System.getProperty("java.home"));
		Path jar = Path.of("service/target/work-graph-service-0.1.0-SNAPSHOT.jar");
		Path runDir = null;
		Path results = Path.of("bench/results");
		for (int i = 0; i < args.length; i++) {
			switch (args[i]) {
				case "--quick" -> mode = QUICK;
				case "--jar" -> jar = Path.of(args[++i]);
				case "--run-dir" -> runDir = Path.of(args[++i]);
				case "--results" -> results = Path.of(args[++i]);
				default -> throw new IllegalArgumentException("unknown argument " + args[i]);
			}
		}
		runDir = (runDir != null) ? Files.createDirectories(runDir) : Files.createTempDirectory("wg-bench");
		Files.createDirectories(results);
		System.exit(new Bench(mode, javaHome, jar.toAbsolutePath(), runDir.toAbsolutePath(), results).run());
	}

	int run() throws Exception {
		long started = System.nanoTime();
		say("bench: mode=%s run dir %s", this.mode.name(), this.runDir);
		this.json.put("mode", this.mode.name());
		this.json.put("startedAt", Instant.now().toString());
		this.json.put("loadBefore", loadAverage());
		this.json.put("machine", Map.of("cpus", Runtime.getRuntime().availableProcessors(), "postgres",
				new Pg("postgres").sql("select version()"), "autovacuum", new Pg("postgres").sql("show autovacuum")));

		Sql sql = Sql.fromJar(this.jar, this.runDir.resolve("app"));
		this.sql = sql;
		Map<String, Path> scripts = new LinkedHashMap<>();
		for (var e : sql.scripts().entrySet()) {
			Path p = this.runDir.resolve(e.getKey() + ".pgbench.sql");
			Files.writeString(p, e.getValue());
			scripts.put(e.getKey(), p);
		}
		this.viewsScript = this.runDir.resolve("lifecycle_views.pgbench.sql");
		Files.writeString(this.viewsScript, sql.lifecycleWithViews());
		say("raw scripts (the service's own statements, read from %s): %s", this.jar.getFileName(), scripts.values());

		// Two services, each on its own fresh database: the scale points need a table that
		// starts at 1,000 items. Both start together (start-up is the slow part of --quick);
		// the second one idles (a reaper query a second) until the scale points.
		String mainDb = "wg_bench_" + this.stamp.toLowerCase(Locale.ROOT);
		String scaleDb = mainDb + "_scale";
		Service mainService = launch(mainDb, 18080);
		Service scaleService = launch(scaleDb, 18081);
		this.ours = List.of(mainService.pid, scaleService.pid);
		this.databases = List.of(mainDb, scaleDb);
		Map<String, Object> main = use(mainService, mainDb);
		this.json.put("service", main);

		warmUp(scripts.get("lifecycle"));
		Map<String, Object> throughput = new LinkedHashMap<>();
		this.json.put("throughput", throughput);
		throughput(scripts, throughput);
		checkpoint();
		this.json.put("openLoop", openLoop());
		checkpoint();
		this.json.put("chain", chain());
		checkpoint();
		this.json.put("fanIn", fanIn());
		checkpoint();
		this.json.put("reaper", reaper());
		checkpoint();
		main.put("consistency", consistency());
		main.put("cpuSecondsTotal", round(this.service.cpuSeconds(), 1));
		main.put("peakRssMib", round(this.service.peakRssMib(), 0));
		stopService(mainDb);

		Map<String, Object> scaleServiceJson = use(scaleService, scaleDb);
		Map<String, Object> scale = scale();
		scale.put("consistency", consistency());
		scale.put("service", scaleServiceJson);
		scaleServiceJson.put("peakRssMib", round(this.service.peakRssMib(), 0));
		this.json.put("scale", scale);
		stopService(scaleDb);

		double minutes = (System.nanoTime() - started) / 60e9;
		this.json.put("durationSeconds", round(minutes * 60, 0));
		this.json.put("loadAfter", loadAverage());
		this.json.put("serviceErrors", this.serviceErrors);
		this.json.put("problems", this.problems);
		this.json.put("notes", this.notes);
		return report();
	}

	// ---------------------------------------------------------------- service lifecycle

	Service launch(String db, int port) throws Exception {
		Pg.createDatabase(db);
		Files.writeString(this.runDir.resolve("databases"), db + "\n", java.nio.file.StandardOpenOption.CREATE,
				java.nio.file.StandardOpenOption.APPEND);
		return Service.launch(this.javaHome, this.jar, db, port, this.runDir.resolve(db + ".log"),
				this.runDir.resolve("pids"));
	}

	/** Waits for the service to be healthy and points the run at it. */
	Map<String, Object> use(Service s, String db) throws Exception {
		long t0 = System.nanoTime();
		s.awaitHealthy(java.time.Duration.ofSeconds(180));
		this.service = s;
		this.pg = new Pg(db);
		this.fixtures = new Fixtures(this.pg);
		this.fixtures.install();
		this.load = new Load(s.port);
		say("service pid %d on :%d, database %s, healthy (waited %.1f s)", s.pid, s.port, db,
				(System.nanoTime() - t0) / 1e9);
		Map<String, Object> m = new LinkedHashMap<>();
		m.put("database", db);
		m.put("jvm", "default flags (production settings), " + this.javaHome);
		return m;
	}

	void stopService(String db) throws Exception {
		this.service.close();
		String log = Files.readString(this.service.log);
		long errorLines = log.lines().filter((l) -> l.contains(" ERROR ")).count();
		if (errorLines > 0) {
			this.problems.add(errorLines + " ERROR lines in the service log " + this.service.log);
		}
		Files.copy(this.service.log, this.resultsDir.resolve(this.stamp + "-" + (db.endsWith("_scale") ? "scale" : "main")
				+ "-service.log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
		Pg.dropDatabase(db);
	}

	// ---------------------------------------------------------------- points

	void warmUp(Path lifecycle) throws Exception {
		say("warm-up: %d s service at 32 workers, %d s pgbench at 32 clients", this.mode.warmSeconds(),
				this.mode.warmSeconds());
		fresh(this.serviceRate * this.mode.warmSeconds() * 2);
		Load.Tally t = this.load.closedLoop(32, this.mode.warmSeconds(), false);
		countErrors("warm-up", t);
		this.fixtures.retireReady(QUEUE);
		fresh(this.rawRate * this.mode.warmSeconds() * 2);
		Pg.PgbenchResult r = this.pg.pgbench(lifecycle, 32, this.mode.warmSeconds());
		this.fixtures.retireReady(QUEUE);
		endStrandedLeases();
		// From here on each point's supply is sized from the best rate seen so far (x3).
		this.serviceRate = t.itemsPerSecond();
		this.rawRate = r.tps();
		say("warm-up rates: service %.0f items/s, raw %.0f items/s", this.serviceRate, this.rawRate);
	}

	/** Raw and service alternate at every repetition, so drift in the machine hits both. */
	void throughput(Map<String, Path> scripts, Map<String, Object> out) throws Exception {
		for (String variant : scripts.keySet()) {
			boolean renew = variant.equals("lifecycle_renew");
			Map<String, Object> byWorkers = new LinkedHashMap<>();
			out.put(variant, byWorkers);
			for (int w : WORKERS) {
				if (renew && !this.mode.renewAllW() && w != 32) {
					continue;
				}
				int reps = renew && !this.mode.renewAllW() ? 1 : this.mode.reps(w);
				List<Double> raw = new ArrayList<>();
				List<Double> svc = new ArrayList<>();
				List<Double> cpu = new ArrayList<>();
				Load.Tally pooled = new Load.Tally();
				double heapUsed = 0;
				double heapCommitted = 0;
				long empty = 0;
				int aborted = 0;
				int rawClients = w;
				List<Double> load1 = new ArrayList<>();
				List<Double> rawOthers = new ArrayList<>();
				List<Double> rawViews = new ArrayList<>();
				boolean withViews = !renew && w == 32;
				List<Double> svcOthers = new ArrayList<>();
				for (int rep = 0; rep < reps; rep++) {
					List<String> sides = new ArrayList<>((rep % 2 == 0) ? List.of("raw", "service") : List.of("service", "raw"));
					if (withViews) {
						sides.add(rep % sides.size(), "raw_views");
					}
					for (String side : sides) {
						load1.add(Double.parseDouble(loadAverage().split(" ")[0]));
						if (side.equals("raw_views")) {
							fresh(Math.max(QUIET_RAW_RATE, this.rawRate * SUPPLY_FACTOR) * this.mode.pointSeconds());
							Pg.PgbenchResult r = this.pg.pgbench(this.viewsScript, w, this.mode.pointSeconds());
							this.fixtures.retireReady(QUEUE);
							endStrandedLeases();
							rawViews.add(r.tps());
							if (r.aborted() > 0) {
								this.problems.add("pgbench lifecycle_views c=" + w + ": " + r.aborted() + " aborted clients");
							}
						}
						else if (side.equals("raw")) {
							fresh(Math.max(QUIET_RAW_RATE, this.rawRate * SUPPLY_FACTOR) * this.mode.pointSeconds());
							rawClients = Math.min(w, this.pg.freeConnections());
							Machine before = Machine.snapshot();
							Pg.PgbenchResult r = this.pg.pgbench(scripts.get(variant), rawClients,
									this.mode.pointSeconds());
							rawOthers.add(others(before));
							this.fixtures.retireReady(QUEUE);
							endStrandedLeases();
							raw.add(r.tps());
							aborted += r.aborted();
							this.rawRate = Math.max(this.rawRate, r.tps());
							if (r.aborted() > 0) {
								this.problems.add("pgbench " + variant + " c=" + w + ": " + r.aborted()
										+ " aborted clients:\n" + r.output());
							}
						}
						else {
							fresh(Math.max(QUIET_SERVICE_RATE, this.serviceRate * SUPPLY_FACTOR) * this.mode.pointSeconds());
							double cpu0 = this.service.cpuSeconds();
							Machine before = Machine.snapshot();
							Load.Tally t;
							if (w == 128 && !renew) {
								try (Service.HeapSampler heap = this.service.new HeapSampler()) {
									t = this.load.closedLoop(w, this.mode.pointSeconds(), renew);
									heapUsed = Math.max(heapUsed, heap.peakUsedMib);
									heapCommitted = Math.max(heapCommitted, heap.peakCommittedMib);
								}
							}
							else {
								t = this.load.closedLoop(w, this.mode.pointSeconds(), renew);
							}
							cpu.add((this.service.cpuSeconds() - cpu0) / t.seconds());
							svcOthers.add(others(before));
							this.fixtures.retireReady(QUEUE);
							svc.add(t.itemsPerSecond());
							this.serviceRate = Math.max(this.serviceRate, t.itemsPerSecond());
							pooled.merge(t);
							empty += t.empty;
							countErrors(variant + " W=" + w, t);
						}
					}
				}
				Map<String, Object> point = new LinkedHashMap<>();
				point.put("rawClients", rawClients);
				point.put("raw", spread(raw));
				point.put("service", spread(svc));
				point.put("ratio", round(Samples.median(unbox(svc)) / Samples.median(unbox(raw)), 3));
				if (withViews) {
					point.put("rawWithResponseReads", spread(rawViews));
					point.put("ratioToRawWithResponseReads",
							round(Samples.median(unbox(svc)) / Samples.median(unbox(rawViews)), 3));
				}
				point.put("claimMs", latencies(pooled.claim));
				if (renew) {
					point.put("renewMs", latencies(pooled.renew));
				}
				point.put("completeMs", latencies(pooled.complete));
				point.put("errors", pooled.errors);
				point.put("emptyClaims", empty);
				point.put("rawAbortedClients", aborted);
				point.put("serviceCpuCores", spread(cpu));
				point.put("loadAverage1mAtStart", spread(load1));
				point.put("othersCpuCoresDuringRaw", spread(rawOthers));
				point.put("othersCpuCoresDuringService", spread(svcOthers));
				if (w == 128 && !renew) {
					point.put("peakHeapUsedMib", round(heapUsed, 0));
					point.put("peakHeapCommittedMib", round(heapCommitted, 0));
				}
				if (empty > 0) {
					this.problems.add(variant + " W=" + w + ": the queue drained (" + empty
							+ " empty claims); supply sizing is wrong, the point is not valid");
				}
				byWorkers.put(String.valueOf(w), point);
				say("%-15s W=%-3d raw (c=%d) %s  service %s  ratio %.2f  claim p99 %.1f ms  complete p99 %.1f ms  errors %d",
						variant, w, rawClients, fmtSpread(raw), fmtSpread(svc), (double) point.get("ratio"),
						pooled.claim.percentileMs(99), pooled.complete.percentileMs(99), pooled.errors);
			}
		}
	}

	Map<String, Object> openLoop() throws Exception {
		int workers = 32;
		double rate = 500;
		Load.Tally pooled = new Load.Tally();
		List<Double> p99claim = new ArrayList<>();
		List<Double> p99complete = new ArrayList<>();
		List<Double> achieved = new ArrayList<>();
		List<Double> cpu = new ArrayList<>();
		List<Double> others = new ArrayList<>();
		long unsent = 0;
		for (int rep = 0; rep < this.mode.openReps(); rep++) {
			fresh(rate * this.mode.openSeconds() + 2000);
			double cpu0 = this.service.cpuSeconds();
			Machine before = Machine.snapshot();
			Load.Tally t = this.load.openLoop(workers, rate, this.mode.openSeconds());
			cpu.add((this.service.cpuSeconds() - cpu0) / t.seconds());
			others.add(others(before));
			this.fixtures.retireReady(QUEUE);
			countErrors("open loop", t);
			pooled.merge(t);
			p99claim.add(t.claim.percentileMs(99));
			p99complete.add(t.complete.percentileMs(99));
			achieved.add(t.itemsPerSecond());
			unsent += t.unsent;
		}
		Map<String, Object> m = new LinkedHashMap<>();
		m.put("offeredPerSecond", rate);
		m.put("workers", workers);
		m.put("seconds", this.mode.openSeconds());
		m.put("achievedPerSecond", spread(achieved));
		m.put("claimMs", latencies(pooled.claim));
		m.put("completeMs", latencies(pooled.complete));
		m.put("claimP99MsPerRun", spread(p99claim));
		m.put("completeP99MsPerRun", spread(p99complete));
		m.put("serviceCpuCores", spread(cpu));
		m.put("othersCpuCores", spread(others));
		m.put("errors", pooled.errors);
		m.put("emptyClaims", pooled.empty);
		m.put("dueButUnsent", unsent);
		if (unsent > 0) {
			// A finding (the latency targets say how far off), not a failed check.
			this.notes.add("open loop: the service did not keep up with 500/s: " + unsent
					+ " claims were still unsent when the window closed (latencies are of those sent)");
		}
		say("open loop 500/s, 32 workers: claim %s ms, complete %s ms (p50/p99/p99.9), errors %d", fmtLat(pooled.claim),
				fmtLat(pooled.complete), pooled.errors);
		return m;
	}

	/** Claim/complete down a chain of 1,000: each completion releases the next link. */
	Map<String, Object> chain() throws Exception {
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
		Map<String, Object> m = new LinkedHashMap<>();
		m.put("links", n);
		m.put("seconds", spread(seconds));
		m.put("claimMs", latencies(pooled.claim));
		m.put("completeMs", latencies(pooled.complete));
		m.put("errors", pooled.errors);
		say("chain of %d: %s s end to end; per link claim %s ms, complete %s ms", n, fmtSpread(seconds),
				fmtLat(pooled.claim), fmtLat(pooled.complete));
		return m;
	}

	/** 10,000 dependents on one item: the completion that releases them all. */
	Map<String, Object> fanIn() throws Exception {
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
			var r = this.load.complete(hub.leaseId(), hub.epoch());
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
		Map<String, Object> m = new LinkedHashMap<>();
		m.put("dependents", n);
		m.put("completeMs", spread(ms));
		say("fan-in of %d: the releasing completion took %s ms", n, fmtSpread(ms));
		return m;
	}

	/** 10,000 leases expiring at once: from their expiry until all are recorded and ready. */
	Map<String, Object> reaper() throws Exception {
		int n = 10_000;
		List<Double> seconds = new ArrayList<>();
		for (int rep = 0; rep < this.mode.reaperReps(); rep++) {
			String queue = "bench-reaper-" + rep;
			this.pg.vacuumHot();
			double expiresAt = this.fixtures.leasedExpiringTogether(queue, n, 2);
			double done = this.fixtures.awaitReaped(queue, n, 120);
			seconds.add(done - expiresAt);
			long recorded = this.fixtures.expiredInHistory(queue);
			if (recorded != n) {
				this.problems.add("reaper: " + recorded + " of " + n + " leases in lease_history as expired");
			}
			this.fixtures.retireReady(queue);
		}
		Map<String, Object> m = new LinkedHashMap<>();
		m.put("leases", n);
		m.put("secondsFromExpiry", spread(seconds));
		m.put("reaperInterval", "1s (default)");
		say("reaper: %d leases expiring together recorded and ready again %s s after expiry", n, fmtSpread(seconds));
		return m;
	}

	/**
	 * Claim latency as the table grows: at each size most items are completed or blocked
	 * and a fixed supply is ready; one worker claims and completes (per-claim cost, no
	 * queueing), the same number of claims at every size.
	 */
	Map<String, Object> scale() throws Exception {
		Map<String, Object> out = new LinkedHashMap<>();
		Map<String, Object> sizes = new LinkedHashMap<>();
		out.put("sizes", sizes);
		int warm = 10;
		long supply = (long) this.mode.scaleClaims() * this.mode.scaleReps() + warm;
		double first = Double.NaN;
		double last = Double.NaN;
		for (long size : this.mode.sizes()) {
			long t0 = System.nanoTime();
			long existing = this.pg.count("select count(*) from work_items");
			long history = Math.max(0, size - existing - supply);
			long blocked = history / 20; // 5% blocked, 95% completed
			this.fixtures.bulkHistory(history - blocked, blocked);
			this.fixtures.readySupply(QUEUE, supply);
			this.pg.sql("vacuum (analyze) ready_items, leases; analyze work_items, dependencies, lease_history;");
			double fillSeconds = (System.nanoTime() - t0) / 1e9;
			long total = this.pg.count("select count(*) from work_items");
			long ready = this.pg.count("select count(*) from ready_items");
			this.load.sequential("bench-scale", null, warm, new ArrayList<>());
			List<Double> p50 = new ArrayList<>();
			Load.Tally pooled = new Load.Tally();
			for (int rep = 0; rep < this.mode.scaleReps(); rep++) {
				Load.Tally t = this.load.sequential("bench-scale", null, this.mode.scaleClaims(), new ArrayList<>());
				countErrors("scale " + size, t);
				p50.add(t.claim.percentileMs(50));
				pooled.merge(t);
			}
			Map<String, Object> point = new LinkedHashMap<>();
			point.put("items", total);
			point.put("readyAtStart", ready);
			point.put("fillSeconds", round(fillSeconds, 1));
			point.put("claimP50MsPerRun", spread(p50));
			point.put("claimMs", latencies(pooled.claim));
			point.put("completeMs", latencies(pooled.complete));
			point.put("errors", pooled.errors);
			sizes.put(String.valueOf(size), point);
			double median = Samples.median(unbox(p50));
			if (Double.isNaN(first)) {
				first = median;
			}
			last = median;
			say("scale %,d items (%,d ready, filled in %.0f s): claim p50 %s ms, claim %s ms, complete %s ms", total,
					ready, fillSeconds, fmtSpread(p50), fmtLat(pooled.claim), fmtLat(pooled.complete));
		}
		out.put("ratio", round(last / first, 3));
		out.put("ratioOf", "median claim p50 at the largest size / at 1,000 items");
		return out;
	}

	/** GET /actuator/consistency must report no inconsistency. */
	Map<String, Object> consistency() throws Exception {
		long t0 = System.nanoTime();
		Map<String, Object> m = new LinkedHashMap<>();
		try {
			String body = this.load.get("/actuator/consistency");
			boolean ok = body.contains("\"consistent\":true");
			m.put("consistent", ok);
			if (!ok) {
				this.problems.add("consistency audit: " + Load.abbreviate(body));
			}
		}
		catch (IOException ex) {
			// The service audits in chunks of ids so that no statement outlasts its 30 s JDBC
			// socket timeout; should it still fail, the same statement runs through psql over
			// the whole id range, so the check still happens.
			this.problems.add("GET /actuator/consistency failed (" + Load.abbreviate(ex.getMessage())
					+ "); ran ConsistencyAudit.INCONSISTENT_ITEMS through psql instead");
			String found = this.pg.sql(Sql.bind(this.sql.audit, Map.of("limit", "100", "after",
					"'00000000-0000-0000-0000-000000000000'::uuid", "upTo", "'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid")) + ";");
			m.put("consistent", found.isEmpty());
			m.put("via", "psql");
			if (!found.isEmpty()) {
				this.problems.add("consistency audit: " + Load.abbreviate(found));
			}
		}
		m.put("seconds", round((System.nanoTime() - t0) / 1e9, 1));
		say("consistency audit: %s (%.1f s)", m.get("consistent"), m.get("seconds"));
		return m;
	}

	// ---------------------------------------------------------------- helpers

	/** A fresh supply of ready items on a vacuumed queue: every point starts equal. */
	void fresh(double supply) throws Exception {
		this.fixtures.readySupply(QUEUE, Math.max(2000, (long) supply));
		this.pg.vacuumHot();
	}

	/**
	 * pgbench stops at -T between statements, so a client can leave a claimed item
	 * leased; such leases are completed here with the same statements (as a worker
	 * would), so they neither linger nor expire into a later point.
	 */
	void endStrandedLeases() throws Exception {
		this.pg.sql("""
				with ended as (
				    delete from leases where worker_id like 'raw-%' returning *
				), recorded as (
				    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
				        ended_at, outcome, reason)
				    select id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at, now(), 'completed', null
				    from ended returning item_id
				)
				update work_items w set status = 'completed', closed_at = now(), updated_at = now()
				from recorded r where w.id = r.item_id;
				""");
	}

	/** Writes what is measured so far, so a run that is killed still leaves its evidence. */
	void checkpoint() throws IOException {
		this.json.put("problems", this.problems);
		Files.writeString(this.resultsDir.resolve(this.stamp + "-" + this.mode.name() + ".partial.json"),
				Json.write(this.json) + "\n");
	}

	/** Cores that other people's processes used since {@code before}. */
	double others(Machine before) {
		return before.othersCores(Machine.snapshot(), Machine.mine(new Pg("postgres"), this.ours, this.databases));
	}

	void countErrors(String where, Load.Tally t) {
		this.serviceErrors += t.errors;
		if (t.errors > 0) {
			this.problems.add(where + ": " + t.errors + " error responses, e.g. "
					+ String.join(" | ", t.errorSamples.stream().limit(3).toList()));
		}
	}

	static Map<String, Object> latencies(Samples s) {
		Map<String, Object> m = new LinkedHashMap<>();
		m.put("n", s.size());
		m.put("p50", round(s.percentileMs(50), 2));
		m.put("p99", round(s.percentileMs(99), 2));
		m.put("p999", round(s.percentileMs(99.9), 2));
		return m;
	}

	static Map<String, Object> spread(List<Double> xs) {
		Map<String, Object> m = new LinkedHashMap<>();
		double[] v = unbox(xs);
		m.put("median", round(Samples.median(v), 2));
		m.put("min", round(xs.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN), 2));
		m.put("max", round(xs.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN), 2));
		m.put("runs", xs.stream().map((x) -> round(x, 2)).toList());
		return m;
	}

	static double[] unbox(List<Double> xs) {
		return xs.stream().mapToDouble(Double::doubleValue).toArray();
	}

	static String fmtSpread(List<Double> xs) {
		double[] v = unbox(xs);
		double med = Samples.median(v);
		if (v.length == 1) {
			return fmt(med);
		}
		return fmt(med) + " [" + fmt(xs.stream().mapToDouble(Double::doubleValue).min().orElseThrow()) + "–"
				+ fmt(xs.stream().mapToDouble(Double::doubleValue).max().orElseThrow()) + "]";
	}

	static String fmtLat(Samples s) {
		return fmt(s.percentileMs(50)) + "/" + fmt(s.percentileMs(99)) + "/" + fmt(s.percentileMs(99.9));
	}

	static String fmt(double x) {
		if (Double.isNaN(x)) {
			return "-";
		}
		return (Math.abs(x) >= 100) ? String.format(Locale.ROOT, "%.0f", x) : String.format(Locale.ROOT, "%.2f", x);
	}

	static double round(double x, int digits) {
		if (Double.isNaN(x) || Double.isInfinite(x)) {
			return x;
		}
		double f = Math.pow(10, digits);
		return Math.round(x * f) / f;
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

	@SuppressWarnings("unchecked")
	int report() throws IOException {
		Map<String, Object> tp = (Map<String, Object>) this.json.get("throughput");
		StringBuilder table = new StringBuilder();
		Consumer<String> line = (s) -> table.append(s).append('\n');
		line.accept("");
		line.accept(String.format(Locale.ROOT, "%-15s %4s | %-28s | %-22s | %5s | %-20s | %-20s | %-20s | %4s | %5s | %s",
				"variant", "W", "raw items/s med[min-max]", "service items/s", "ratio", "claim ms p50/p99/p999",
				"renew ms", "complete ms", "errs", "cpu", "others' cpu raw/svc"));
		for (var v : tp.entrySet()) {
			for (var w : ((Map<String, Object>) v.getValue()).entrySet()) {
				Map<String, Object> p = (Map<String, Object>) w.getValue();
				line.accept(String.format(Locale.ROOT,
						"%-15s %4s | %-28s | %-22s | %5.2f | %-20s | %-20s | %-20s | %4d | %5s | %s/%s", v.getKey(),
						w.getKey(),
						rawText(p, w.getKey()), spreadText(p.get("service")), (double) p.get("ratio"),
						latText(p.get("claimMs")), p.containsKey("renewMs") ? latText(p.get("renewMs")) : "",
						latText(p.get("completeMs")), (long) p.get("errors"),
						fmt((double) ((Map<String, Object>) p.get("serviceCpuCores")).get("median")),
						fmt(median(p.get("othersCpuCoresDuringRaw"))), fmt(median(p.get("othersCpuCoresDuringService")))));
			}
		}
		Map<String, Object> open = (Map<String, Object>) this.json.get("openLoop");
		Map<String, Object> scale = (Map<String, Object>) this.json.get("scale");
		Map<String, Object> chain = (Map<String, Object>) this.json.get("chain");
		Map<String, Object> fan = (Map<String, Object>) this.json.get("fanIn");
		Map<String, Object> reaper = (Map<String, Object>) this.json.get("reaper");
		Map<String, Object> svc = (Map<String, Object>) this.json.get("service");
		Map<String, Object> p128 = (Map<String, Object>) ((Map<String, Object>) tp.get("lifecycle")).get("128");
		Map<String, Object> p32 = (Map<String, Object>) ((Map<String, Object>) tp.get("lifecycle")).get("32");
		line.accept("");
		line.accept("diagnostic at 32: raw incl. the response-view reads (all SQL the service runs per item, no HTTP) "
				+ spreadText(p32.get("rawWithResponseReads")) + " items/s; service / that = "
				+ p32.get("ratioToRawWithResponseReads"));
		line.accept("open loop 500/s, 32 workers: achieved " + spreadText(open.get("achievedPerSecond"))
				+ " items/s, claim " + latText(open.get("claimMs")) + " ms, complete " + latText(open.get("completeMs"))
				+ " ms (p50/p99/p99.9), service cpu " + spreadText(open.get("serviceCpuCores")) + " cores, others' cpu "
				+ spreadText(open.get("othersCpuCores")) + " cores");
		for (var s : ((Map<String, Object>) scale.get("sizes")).entrySet()) {
			Map<String, Object> p = (Map<String, Object>) s.getValue();
			line.accept(String.format(Locale.ROOT, "scale %,12d items: claim p50 %s ms, claim %s ms, complete %s ms",
					(long) p.get("items"), spreadText(p.get("claimP50MsPerRun")), latText(p.get("claimMs")),
					latText(p.get("completeMs"))));
		}
		line.accept("chain of 1,000: " + spreadText(chain.get("seconds")) + " s, per link claim "
				+ latText(chain.get("claimMs")) + " ms, complete " + latText(chain.get("completeMs")) + " ms");
		line.accept("fan-in 10,000: releasing completion " + spreadText(fan.get("completeMs")) + " ms");
		line.accept("reaper 10,000: " + spreadText(reaper.get("secondsFromExpiry")) + " s from expiry to recorded + ready");
		line.accept("service: peak heap used " + p128.get("peakHeapUsedMib") + " MiB (committed "
				+ p128.get("peakHeapCommittedMib") + ") at 128 workers, peak RSS " + svc.get("peakRssMib")
				+ " MiB, CPU " + svc.get("cpuSecondsTotal") + " s; consistency " + svc.get("consistency")
				+ ", scale db consistency " + scale.get("consistency"));

		double raw32 = median(p32.get("raw"));
		double svc32 = median(p32.get("service"));
		double ratio32 = (double) p32.get("ratio");
		double claimP99 = (double) ((Map<String, Object>) open.get("claimMs")).get("p99");
		double completeP99 = (double) ((Map<String, Object>) open.get("completeMs")).get("p99");
		double scaleRatio = (double) scale.get("ratio");
		double reaperSeconds = median(reaper.get("secondsFromExpiry"));
		double heap = ((Number) p128.get("peakHeapUsedMib")).doubleValue();
		line.accept("");
		line.accept("targets:");
		line.accept(target("lifecycle over HTTP >= 60% of raw at 32 workers", ratio32 >= 0.6, fmt(ratio32)));
		line.accept(target("claim p99 <= 10 ms at 500/s", claimP99 <= 10, fmt(claimP99) + " ms"));
		line.accept(target("complete p99 <= 10 ms at 500/s", completeP99 <= 10, fmt(completeP99) + " ms"));
		line.accept(target("scale ratio <= 1.3", scaleRatio <= 1.3, fmt(scaleRatio)));
		line.accept(target("reaper 10k <= 2 s", reaperSeconds <= 2, fmt(reaperSeconds) + " s"));
		line.accept(target("heap <= 256 MiB at 128 workers", heap <= 256, fmt(heap) + " MiB"));
		line.accept(target("errors 0", this.serviceErrors == 0, String.valueOf(this.serviceErrors)));
		if (!this.problems.isEmpty()) {
			line.accept("");
			line.accept("problems:");
			this.problems.forEach((p) -> line.accept("  - " + p));
		}
		if (!this.notes.isEmpty()) {
			line.accept("");
			line.accept("notes:");
			this.notes.forEach((p) -> line.accept("  - " + p));
		}
		String summary = String.format(Locale.ROOT,
				"bench: raw_lifecycle_32=%.0f service_lifecycle_32=%.0f ratio_32=%.2f claim_p99_ms=%.2f complete_p99_ms=%.2f scale_ratio=%.2f reaper_10k_seconds=%.2f heap_mib=%.0f errors=%d",
				raw32, svc32, ratio32, claimP99, completeP99, scaleRatio, reaperSeconds, heap, this.serviceErrors);
		line.accept("");
		line.accept("load average before " + this.json.get("loadBefore") + ", after " + this.json.get("loadAfter")
				+ "; duration " + this.json.get("durationSeconds") + " s");
		this.json.put("summary", summary);
		this.json.put("table", table.toString());
		Path out = this.resultsDir.resolve(this.stamp + "-" + this.mode.name() + ".json");
		Files.writeString(out, Json.write(this.json) + "\n");
		Files.deleteIfExists(this.resultsDir.resolve(this.stamp + "-" + this.mode.name() + ".partial.json"));
		System.out.print(table);
		System.out.println("results: " + out);
		System.out.println(summary);
		return (this.serviceErrors == 0 && this.problems.isEmpty()) ? 0 : 1;
	}

	@SuppressWarnings("unchecked")
	static double median(Object spread) {
		return ((Number) ((Map<String, Object>) spread).get("median")).doubleValue();
	}

	@SuppressWarnings("unchecked")
	static String spreadText(Object spread) {
		Map<String, Object> m = (Map<String, Object>) spread;
		List<Double> runs = (List<Double>) m.get("runs");
		return fmtSpread(runs);
	}

	/** The raw figure, marked when pgbench ran fewer clients than workers (max_connections). */
	static String rawText(Map<String, Object> point, String workers) {
		String clients = point.get("rawClients").toString();
		return spreadText(point.get("raw")) + (clients.equals(workers) ? "" : " (c=" + clients + ")");
	}

	@SuppressWarnings("unchecked")
	static String latText(Object lat) {
		Map<String, Object> m = (Map<String, Object>) lat;
		return fmt((double) m.get("p50")) + "/" + fmt((double) m.get("p99")) + "/" + fmt((double) m.get("p999"));
	}

	static String target(String what, boolean met, String value) {
		return String.format(Locale.ROOT, "  %-50s %-12s %s", what, value, met ? "met" : "NOT MET");
	}

}
