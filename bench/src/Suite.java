import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * What every point of a run works with: the mode, the service being measured (its
 * database, fixtures and generators), the run's problems and notes, and what each point
 * repeats around its runs (a fresh supply, ending stranded leases, counting errors, the
 * machine probe).
 */
final class Suite {

	static final String QUEUE = "default";

	/** The wrk connections are workers wrk-1 ... wrk-128, the JVM's bench-0 ... bench-127. */
	static final List<String> WRK_WORKERS = IntStream.rangeClosed(1, 128).mapToObj((i) -> "wrk-" + i).toList();

	static final List<String> OTHER_WORKERS = List.of("bench-scale", "bench-chain", "bench-fanin");

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

	final Mode mode;

	final Path javaHome;

	final Path jar;

	final Path runDir;

	final Path resultsDir;

	final Path benchDir;

	/** The run's start (UTC), which names its results files and databases. */
	final String stamp;

	/** Failed checks and error answers: the run exits non-zero. */
	final List<String> problems = new ArrayList<>();

	/** Things the reader must know about the figures, which are not failures. */
	final List<String> notes = new ArrayList<>();

	/** The machine probe's CPU seconds before each repetition, per point, in run order. */
	final Map<String, List<Double>> machineProbes = new LinkedHashMap<>();

	private MachineProbe machineProbe;

	long serviceErrors;

	/** The databases of this run, for the CPU meter (their backends are PostgreSQL's share). */
	final List<String> databases = new ArrayList<>();

	final Services services = new Services(this);

	/** The bootstrap admin token every service of the run starts with. */
	final String adminToken = Auth.newAdminToken();

	/** The service's statements, read from the jar. */
	Sql sql;

	/** The raw side's pgbench scripts by variant (lifecycle, lifecycle_renew). */
	Map<String, Path> scripts;

	/** Diagnostic raw script: the lifecycle plus the response-view reads (W=32 only). */
	Path viewsScript;

	// The service measured now (see enter).

	Service service;

	Pg pg;

	Fixtures fixtures;

	Auth auth;

	Load load;

	Wrk wrk;

	/** Best rate seen per side, to size each point's supply generously. */
	double rawRate = 4000;

	double serviceRate = 2000;

	Suite(Mode mode, Path javaHome, Path jar, Path runDir, Path resultsDir, Path benchDir, String stamp) {
		this.mode = mode;
		this.javaHome = javaHome;
		this.jar = jar;
		this.runDir = runDir;
		this.resultsDir = resultsDir;
		this.benchDir = benchDir;
		this.stamp = stamp;
	}

	/** The main service's database; the peer's and the scale points' are named after it. */
	String mainDb() {
		return "wgbench_" + this.stamp.toLowerCase(Locale.ROOT);
	}

	/** Points the run at one service: the points, the audit, its info and its stop use it. */
	void enter(Services.Attached attached) {
		this.service = attached.service();
		this.pg = attached.pg();
		this.fixtures = attached.fixtures();
		this.auth = attached.auth();
		this.load = attached.load();
	}

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
		// Ended at the statement's clock, not the transaction's start: a claim in flight when the
		// load stopped may commit a lease after this transaction began (lease_history requires
		// ended_at >= acquired_at).
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
				    select id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
				        greatest(clock_timestamp(), acquired_at, renewed_at), 'completed', null
				    from ended returning item_id
				)
				update work_items w set status = 'completed', closed_at = clock_timestamp(), updated_at = clock_timestamp()
				from recorded r where w.id = r.item_id;
				commit;
				""".formatted(stranded));
	}

	/** What a point's queue holds ready after its run is retired, and its stranded leases ended. */
	void retire() throws Exception {
		this.fixtures.retireReady(QUEUE);
		endStrandedLeases();
	}

	void countErrors(String where, Load.Tally t) {
		countErrors(where, t.errors, t.errorSamples.stream().toList());
	}

	void countErrors(String where, Wrk.Run r) {
		countErrors(where, r.errors() + r.socketErrors(), r.errorSamples());
	}

	void countErrors(String where, long errors, List<String> samples) {
		this.serviceErrors += errors;
		if (errors > 0) {
			this.problems.add(where + ": " + errors + " error responses, e.g. "
					+ String.join(" | ", samples.stream().limit(3).toList()));
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

	static final long T0 = System.nanoTime();

	static void say(String format, Object... args) {
		System.out.println(String.format(Locale.ROOT, "[%5.0fs] ", (System.nanoTime() - T0) / 1e9)
				+ String.format(Locale.ROOT, format, args));
		System.out.flush();
	}

}
