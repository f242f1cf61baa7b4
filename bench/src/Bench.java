import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Work Graph's benchmark suite (bench/run.sh starts it). Measures, in one run and under
 * equal conditions: the raw PostgreSQL ceiling of the service's own claim/complete
 * statements (pgbench, a C program), the service over HTTP at the same concurrency driven
 * by wrk (C, the fair side of the ratio) and by a JVM generator (the realistic client),
 * graphile-worker as a peer on the same server, batches, latency at a fixed offered rate,
 * claim cost as the table grows, deep graphs, and the reaper. Prints a table and one
 * summary line, writes the figures as JSON. Each point is a class of its own ({@link Point});
 * this one starts the services they measure and runs them in turn.
 */
public class Bench {

	final Suite suite;

	final String startedAt = Instant.now().toString();

	final String loadBefore = Host.loadAverage();

	final long started = System.nanoTime();

	// The points the summary line and the targets read.

	final ThroughputPoints throughput = new ThroughputPoints();

	final BatchPoint batch = new BatchPoint();

	final PeerPoint peer = new PeerPoint();

	final OpenLoopPoint openLoop = new OpenLoopPoint();

	final ScalePoint scale = new ScalePoint();

	final ReaperPoint reaper = new ReaperPoint();

	/**
	 * The points, in the order the table shows them. They run in this order, those with
	 * services of their own once the main service has stopped, and the results file lists
	 * them in the order a full run runs them. A new point is its class and a line here.
	 */
	final List<Point> points = List.of(this.throughput, this.batch, this.peer, new StreamPoint(),
			new StreamLatencyPoint(), this.openLoop, new OpenLoopJvmPoint(), this.scale, new ChainPoint(), new FanInPoint(), new CheckpointedPoint(), this.reaper);

	/** The main service's audit, CPU and memory; null until it has stopped. */
	Results.ServiceInfo serviceInfo;

	Bench(Mode mode, Path javaHome, Path jar, Path runDir, Path resultsDir, Path benchDir) {
		String stamp = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC).format(Instant.now());
		this.suite = new Suite(mode, javaHome, jar, runDir, resultsDir, benchDir, stamp);
	}

	public static void main(String[] args) throws Exception {
		Mode mode = Mode.FULL;
		int reaperOnly = 0;
		int openLoopOnly = 0;
		int scaleOnly = 0;
		int streamOnly = 0;
		boolean streamLatencyOnly = false;
		boolean fullSizes = false;
		Path javaHome = Path.of(System.getProperty("java.home"));
		Path jar = Path.of("service/target/work-graph-service-0.1.0-SNAPSHOT.jar");
		Path runDir = null;
		Path results = Path.of("bench/results");
		for (int i = 0; i < args.length; i++) {
			switch (args[i]) {
				case "--quick" -> mode = Mode.QUICK;
				case "--reaper-only" -> reaperOnly = Integer.parseInt(args[++i]);
				case "--open-loop-only" -> openLoopOnly = Integer.parseInt(args[++i]);
				case "--scale-only" -> scaleOnly = Integer.parseInt(args[++i]);
				case "--stream-only" -> streamOnly = Integer.parseInt(args[++i]);
				case "--stream-latency-only" -> streamLatencyOnly = true;
				case "--full-sizes" -> fullSizes = true;
				case "--jar" -> jar = Path.of(args[++i]);
				case "--run-dir" -> runDir = Path.of(args[++i]);
				case "--results" -> results = Path.of(args[++i]);
				default -> throw new IllegalArgumentException("unknown argument " + args[i]);
			}
		}
		if (reaperOnly > 0) {
			mode = Mode.reaperOnly(reaperOnly);
		}
		if (openLoopOnly > 0) {
			mode = Mode.openLoopOnly(openLoopOnly);
		}
		if (scaleOnly > 0) {
			mode = Mode.scaleOnly(scaleOnly, fullSizes);
		}
		if (streamOnly > 0) {
			mode = Mode.streamOnly(streamOnly);
		}
		if (streamLatencyOnly) {
			mode = Mode.streamLatencyOnly();
		}
		runDir = (runDir != null) ? Files.createDirectories(runDir) : Files.createTempDirectory("wg-bench");
		Files.createDirectories(results);
		System.exit(new Bench(mode, javaHome, jar.toAbsolutePath(), runDir.toAbsolutePath(), results,
				Path.of("bench").toAbsolutePath())
			.run());
	}

	int run() throws Exception {
		Suite s = this.suite;
		Suite.say("bench: mode=%s run dir %s, load average %s", s.mode.name(), s.runDir, this.loadBefore);
		readStatements();
		List<Point> onMain = inRunOrder().stream().filter((p) -> !p.ownServices() && s.mode.runs(p)).toList();
		if (!onMain.isEmpty()) {
			// The main service on a fresh database; the points with services of their own
			// start them once it has stopped.
			String db = s.mainDb();
			s.services.use(s.services.launch(db, s.adminToken), db, s.adminToken);
			if (s.mode.warmSeconds() > 0) {
				WarmUp.run(s);
			}
			for (Point point : onMain) {
				point.run(s);
				checkpoint();
			}
			Results.Consistency consistency = s.services.audit();
			this.serviceInfo = s.services.info(db, consistency, s.service.cpuSeconds());
			s.services.stop(db);
		}
		for (Point point : inRunOrder()) {
			if (point.ownServices() && s.mode.runs(point)) {
				point.run(s);
				checkpoint();
			}
		}
		return report();
	}

	/** The points in the order a full run runs them: on the main service first. */
	List<Point> inRunOrder() {
		return Stream.concat(this.points.stream().filter((p) -> !p.ownServices()),
				this.points.stream().filter(Point::ownServices))
			.toList();
	}

	/**
	 * Reads the service's statements from the jar and writes them as the raw side's pgbench
	 * scripts into the run directory.
	 */
	void readStatements() throws Exception {
		Suite s = this.suite;
		s.sql = Sql.fromJar(s.jar, s.runDir.resolve("app"), s.benchDir.resolve("statements.properties"));
		s.scripts = new LinkedHashMap<>();
		for (var e : s.sql.scripts().entrySet()) {
			Path p = s.runDir.resolve(e.getKey() + ".pgbench.sql");
			Files.writeString(p, e.getValue());
			s.scripts.put(e.getKey(), p);
		}
		s.viewsScript = s.runDir.resolve("lifecycle_views.pgbench.sql");
		Files.writeString(s.viewsScript, s.sql.lifecycleWithViews());
		Suite.say("raw scripts (the service's own statements, read from %s as bench/statements.properties names them): %s",
				s.jar.getFileName(), s.scripts.values());
	}

	/** The results file: the run, its points in the order they ran, what went wrong, the report. */
	Map<String, Object> results(String summary, String table) {
		Map<String, Object> run = new LinkedHashMap<>();
		run.put("mode", this.suite.mode.name());
		run.put("startedAt", this.startedAt);
		run.put("machine", Host.describe(this.loadBefore));
		run.put("service", this.serviceInfo);
		for (Point point : inRunOrder()) {
			point.results(run);
		}
		run.put("durationSeconds", durationSeconds());
		run.put("serviceErrors", this.suite.serviceErrors);
		run.put("problems", this.suite.problems);
		run.put("notes", this.suite.notes);
		run.put("summary", summary);
		run.put("table", table);
		run.put("machineProbeCpuSeconds", this.suite.machineProbes);
		return run;
	}

	double durationSeconds() {
		return Results.round((System.nanoTime() - this.started) / 1e9, 0);
	}

	Path resultsFile(String suffix) {
		return this.suite.resultsDir.resolve(this.suite.stamp + "-" + this.suite.mode.name() + suffix);
	}

	/** Writes what is measured so far, so a run that is killed still leaves its evidence. */
	void checkpoint() throws Exception {
		Files.writeString(resultsFile(".partial.json"), Json.write(results(null, null)) + "\n");
	}

	int report() throws Exception {
		Results.Summary summary = Report.summary(this);
		this.suite.noteMachineSpeed();
		String table = Report.table(this, summary, Host.describe(this.loadBefore), durationSeconds());
		Path out = resultsFile(".json");
		Files.writeString(out, Json.write(results(summary.line(), table)) + "\n");
		Files.deleteIfExists(resultsFile(".partial.json"));
		System.out.print(table);
		System.out.println("results: " + out);
		System.out.println(summary.line());
		return (this.suite.serviceErrors == 0 && this.suite.problems.isEmpty()) ? 0 : 1;
	}

}
