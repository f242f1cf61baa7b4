import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Throughput at W = 1, 8, 32, 128, claim → complete and claim → renew → complete: raw
 * (pgbench running the service's own statements), wrk and the JVM generator, in an order
 * that rotates at each repetition so drift in the machine hits all sides; each side gets
 * its own supply, a warm-up run with the same generator at the same concurrency, then the
 * measured run.
 */
final class ThroughputPoints implements Point {

	static final int[] WORKERS = { 1, 8, 32, 128 };

	private final List<Results.ThroughputPoint> points = new ArrayList<>();

	/** The point of this variant at W workers; null when it did not run. */
	Results.ThroughputPoint point(String variant, int workers) {
		return this.points.stream()
			.filter((p) -> p.variant().equals(variant) && p.workers() == workers)
			.findFirst()
			.orElse(null);
	}

	/** The peak heap the service used and committed while a side ran at 128 workers. */
	static final class HeapPeak {

		double usedMib;

		double committedMib;

	}

	@Override
	public void run(Suite suite) throws Exception {
		Mode mode = suite.mode;
		for (String variant : suite.scripts.keySet()) {
			boolean renew = variant.equals("lifecycle_renew");
			for (int w : WORKERS) {
				if (renew && !mode.renewAllW() && w != 32) {
					continue;
				}
				int reps = (renew && !mode.renewAllW()) ? 1 : mode.reps(w);
				// Only where the answers take reads of their own (none since both statements
				// answer their item's view themselves).
				boolean withViews = !renew && w == 32 && suite.sql.answersReadSeparately();
				SideRuns raw = new SideRuns("pgbench", w);
				SideRuns wrkSide = new SideRuns("wrk", w);
				SideRuns jvm = new SideRuns("jvm", w);
				SideRuns views = new SideRuns("pgbench+views", w);
				List<Double> load1 = new ArrayList<>();
				List<Double> probes = new ArrayList<>();
				HeapPeak heap = new HeapPeak();
				for (int rep = 0; rep < reps; rep++) {
					probes.add(suite.probeMachine(variant + " W=" + w));
					List<SideRuns> order = new ArrayList<>(List.of(raw, wrkSide, jvm));
					Collections.rotate(order, -rep);
					if (withViews) {
						order.add(rep % order.size(), views);
					}
					for (SideRuns side : order) {
						load1.add(Double.parseDouble(Host.loadAverage().split(" ")[0]));
						switch (side.generator) {
							case "pgbench" -> rawSide(suite, side, suite.scripts.get(variant), w, variant);
							case "pgbench+views" -> rawSide(suite, side, suite.viewsScript, w, "lifecycle_views");
							case "wrk" -> wrkSide(suite, side, w, renew, heap);
							default -> jvmSide(suite, side, w, renew, heap);
						}
					}
				}
				for (SideRuns side : List.of(wrkSide, jvm)) {
					if (side.empty > 0) {
						suite.problems.add(variant + " W=" + w + " (" + side.generator + "): the queue drained ("
								+ side.empty + " empty claims); supply sizing is wrong, the point is not valid");
					}
				}
				Results.Side rawResult = raw.side();
				Results.Side wrkResult = wrkSide.side();
				Results.Side jvmResult = jvm.side();
				double rawMedian = rawResult.itemsPerSecond().median();
				Results.Spread probeSpread = Results.Spread.of(probes);
				Results.ThroughputPoint point = new Results.ThroughputPoint(variant, w, rawResult, wrkResult, jvmResult,
						withViews ? views.side() : null,
						Results.round(wrkResult.itemsPerSecond().median() / rawMedian, 3),
						Results.round(jvmResult.itemsPerSecond().median() / rawMedian, 3), Results.Spread.of(load1),
						(w == 128) ? Results.round(heap.usedMib, 0) : Double.NaN,
						(w == 128) ? Results.round(heap.committedMib, 0) : Double.NaN, probeSpread);
				this.points.add(point);
				Suite.say("%-15s W=%-3d raw %s  wrk %s (x%.2f, claim p99 %s ms, complete p99 %s ms)  jvm %s (x%.2f)"
						+ "  errors %d  machine probe %s s", variant, w, rawResult.itemsPerSecond().text(),
						wrkResult.itemsPerSecond().text(), point.ratio(), Results.fmt(wrkResult.claimMs().p99()),
						Results.fmt(wrkResult.completeMs().p99()), jvmResult.itemsPerSecond().text(), point.jvmRatio(),
						wrkResult.errors() + jvmResult.errors(), probeSpread.runs());
			}
		}
	}

	static void rawSide(Suite suite, SideRuns side, Path script, int w, String variant)
			throws Exception {
		int seconds = suite.mode.pointSeconds();
		suite.fresh(Math.max(Suite.QUIET_RAW_RATE, suite.rawRate * Suite.SUPPLY_FACTOR)
				* (seconds + suite.mode.pointWarmSeconds()));
		int clients = Math.min(w, suite.pg.freeConnections());
		side.clients = clients;
		suite.pg.pgbench(script, clients, suite.mode.pointWarmSeconds());
		suite.endStrandedLeases();
		AtomicLong pid = new AtomicLong();
		Pg.PgbenchResult r;
		Cpu.Cores cores;
		try (Cpu cpu = new Cpu(suite.service.pid, pid::get, suite.databases)) {
			r = suite.pg.pgbench(script, clients, seconds, pid::set);
			cores = cpu.cores();
		}
		suite.retire();
		side.add(r, cores);
		if (!variant.equals("lifecycle_views")) {
			suite.rawRate = Math.max(suite.rawRate, r.tps());
		}
		if (r.aborted() > 0) {
			suite.problems.add("pgbench " + variant + " c=" + clients + ": " + r.aborted() + " aborted clients:\n"
					+ r.output());
		}
	}

	/**
	 * One repetition of the wrk side at W workers; the peer's turns run the lifecycle at 32
	 * through it too.
	 */
	static void wrkSide(Suite suite, SideRuns side, int w, boolean renew, HeapPeak heap) throws Exception {
		int seconds = suite.mode.pointSeconds();
		suite.fresh(Math.max(Suite.QUIET_SERVICE_RATE, suite.serviceRate * Suite.SUPPLY_FACTOR)
				* (seconds + suite.mode.pointWarmSeconds()));
		Wrk.Run warm = suite.wrk.lifecycle(w, suite.mode.pointWarmSeconds(), renew);
		suite.countErrors("wrk warm-up W=" + w, warm);
		suite.endStrandedLeases();
		Wrk.Run r = heapSampled(suite, w, heap, () -> suite.wrk.lifecycle(w, seconds, renew));
		suite.retire();
		side.add(r);
		suite.serviceRate = Math.max(suite.serviceRate, r.itemsPerSecond());
		suite.countErrors((renew ? "renew" : "lifecycle") + " W=" + w + " (wrk)", r);
	}

	static void jvmSide(Suite suite, SideRuns side, int w, boolean renew, HeapPeak heap) throws Exception {
		int seconds = suite.mode.pointSeconds();
		suite.fresh(Math.max(Suite.QUIET_SERVICE_RATE, suite.serviceRate * Suite.SUPPLY_FACTOR)
				* (seconds + suite.mode.pointWarmSeconds()));
		suite.countErrors("jvm warm-up W=" + w, suite.load.closedLoop(w, suite.mode.pointWarmSeconds(), renew));
		Load.Tally t;
		Cpu.Cores cores;
		try (Cpu cpu = new Cpu(suite.service.pid, Cpu::self, suite.databases)) {
			t = heapSampled(suite, w, heap, () -> suite.load.closedLoop(w, seconds, renew));
			cores = cpu.cores();
		}
		suite.retire();
		side.add(t, cores);
		suite.countErrors((renew ? "renew" : "lifecycle") + " W=" + w + " (jvm)", t);
	}

	/** A measured run; at 128 workers with the service's heap sampled meanwhile (jstat). */
	private static <T> T heapSampled(Suite suite, int w, HeapPeak heap, Callable<T> run) throws Exception {
		if (w != 128) {
			return run.call();
		}
		try (Service.HeapSampler sampler = suite.service.new HeapSampler()) {
			T result = run.call();
			heap.usedMib = Math.max(heap.usedMib, sampler.peakUsedMib);
			heap.committedMib = Math.max(heap.committedMib, sampler.peakCommittedMib);
			return result;
		}
	}

	@Override
	public void results(Map<String, Object> into) {
		into.put("throughput", this.points);
	}

	/** The table's head (shown in every mode) and a row per side of each point. */
	@Override
	public void table(Consumer<String> line) {
		line.accept("items/s median [min–max]; latency ms p50/p99/p99.9 per request as the worker sees it; "
				+ "cpu = cores used by service/generator/PostgreSQL/others during the point; cpu ms/item = "
				+ "service and PostgreSQL CPU per completed item");
		line.accept(String.format(Locale.ROOT, "%-15s %4s %-13s | %-22s | %-20s | %-20s | %-20s | %5s | %4s | %-22s | %s",
				"variant", "W", "driver", "items/s", "claim ms", "renew ms", "complete ms", "/raw", "errs",
				"cpu svc/gen/pg/oth", "cpu ms/item svc+pg"));
		for (Results.ThroughputPoint p : this.points) {
			List<Results.Side> sides = new ArrayList<>(List.of(p.raw(), p.wrk(), p.jvm()));
			if (p.rawWithViews() != null) {
				sides.add(p.rawWithViews());
			}
			for (Results.Side s : sides) {
				double vsRaw = s.itemsPerSecond().median() / p.raw().itemsPerSecond().median();
				String driver = s.generator() + ((s.clients() != p.workers()) ? " c=" + s.clients() : "");
				double rate = s.itemsPerSecond().median();
				line.accept(String.format(Locale.ROOT,
						"%-15s %4d %-13s | %-22s | %-20s | %-20s | %-20s | %5.2f | %4d | %-22s | %s+%s",
						p.variant(), p.workers(), driver, s.itemsPerSecond().text(), s.claimMs().text(),
						(s.renewMs().n() > 0) ? s.renewMs().text() : "", s.completeMs().text(), vsRaw, s.errors(),
						s.cpuCores().text(), Results.fmt(1000 * s.cpuCores().service().median() / rate),
						Results.fmt(1000 * s.cpuCores().postgres().median() / rate)));
			}
		}
		if (this.points.stream().anyMatch((p) -> p.rawWithViews() != null)) {
			line.accept("(pgbench+views: the lifecycle plus the reads that build the two answers, i.e. all the SQL the "
					+ "service runs per item, no HTTP)");
		}
		line.accept("");
	}

}
