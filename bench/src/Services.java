import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The services of a run, each from the packaged jar on a database of its own: started with
 * tokens for their workers, audited ({@code GET /actuator/consistency}), stopped with their
 * logs kept and their databases dropped, or kept when something in them needs explaining.
 */
final class Services {

	/** A started service on its database, with tokens for these workers. */
	record Attached(Service service, String db, Pg pg, Fixtures fixtures, Auth auth, Load load) {
	}

	/**
	 * Whether the main database outlives the run, to examine what its points left behind
	 * (e.g. explain a slow statement on it); the scale databases are dropped unless their
	 * audit failed.
	 */
	static final boolean KEEP_MAIN_DATABASE = !System.getenv().getOrDefault("WG_BENCH_KEEP_MAIN_DB", "").isEmpty();

	/** What the service logs for an audit chunk cancelled at its query timeout. */
	static final String AUDIT_CHUNK_CANCELLED = "was cancelled at the query timeout";

	private final Suite suite;

	/**
	 * Whether the audit through the service of the database about to be dropped failed.
	 * That database (the main one or the largest scale one) is then kept: what made a
	 * statement outlast its timeout is in its rows and statistics, and gone once it is
	 * dropped.
	 */
	private boolean auditFailed;

	Services(Suite suite) {
		this.suite = suite;
	}

	/**
	 * Creates a database of this run, listed where run.sh's clean-up finds it should the run
	 * die before dropping it.
	 */
	void createDatabase(String db) throws Exception {
		Pg.createDatabase(db);
		Files.writeString(this.suite.runDir.resolve("databases"), db + "\n", StandardOpenOption.CREATE,
				StandardOpenOption.APPEND);
	}

	/** Starts a service on a new database; {@link #use} or {@link #attach} waits for it. */
	Service launch(String db, String adminToken) throws Exception {
		createDatabase(db);
		this.suite.databases.add(db);
		return Service.launch(this.suite.javaHome, this.suite.jar, db, Service.freePort(), adminToken,
				this.suite.runDir.resolve(db + ".log"), this.suite.runDir.resolve("pids"));
	}

	/** Waits for the service to be healthy, mints the workers' tokens, points the run at it. */
	void use(Service s, String db, String adminToken) throws Exception {
		long t0 = System.nanoTime();
		List<String> workers = new ArrayList<>(Suite.WRK_WORKERS);
		IntStream.range(0, 128).mapToObj(Load::workerId).forEach(workers::add);
		workers.addAll(Suite.OTHER_WORKERS);
		this.suite.enter(attach(s, db, adminToken, workers));
		this.suite.wrk = new Wrk(this.suite.benchDir.resolve("wrk/workgraph.lua"), s.port,
				this.suite.auth.writeWorkersFile(this.suite.runDir.resolve("wrk-workers"), Suite.WRK_WORKERS), s.pid,
				this.suite.databases);
		Suite.say("service pid %d on :%d, database %s, healthy (waited %.1f s); tokens: %s", s.pid, s.port, db,
				(System.nanoTime() - t0) / 1e9, this.suite.auth.mode);
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

	/** The service being measured, for the results file. */
	Results.ServiceInfo info(String db, Results.Consistency consistency, double cpuSeconds) throws IOException {
		return new Results.ServiceInfo(db, this.suite.service.port,
				"default flags (production settings), " + this.suite.javaHome, this.suite.auth.mode, consistency,
				Results.round(cpuSeconds, 1), Results.round(this.suite.service.peakRssMib(), 0));
	}

	/** GET /actuator/consistency must report no inconsistency. */
	Results.Consistency audit() throws Exception {
		long t0 = System.nanoTime();
		boolean ok;
		String via = "GET /actuator/consistency";
		this.auditFailed = false;
		try {
			String body = this.suite.load.get("/actuator/consistency");
			ok = body.contains("\"consistent\":true");
			if (!ok) {
				this.suite.problems.add("consistency audit: " + Load.abbreviate(body));
			}
		}
		catch (IOException ex) {
			// The service audits in chunks of ids so that no statement outlasts its 25 s query
			// timeout; should it still fail, the same statement runs through psql over the
			// whole id range, so the check still happens.
			this.auditFailed = true;
			this.suite.problems.add("GET /actuator/consistency failed (" + Load.abbreviate(ex.getMessage())
					+ "); ran the audit statement through psql instead");
			String found = this.suite.pg.sql(Sql.bind(this.suite.sql.audit, Map.of("limit", "100", "after",
					"'00000000-0000-0000-0000-000000000000'::uuid", "upTo", "'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid"))
					+ ";");
			ok = found.isEmpty();
			via = "psql";
			if (!ok) {
				this.suite.problems.add("consistency audit: " + Load.abbreviate(found));
			}
		}
		Results.Consistency c = new Results.Consistency(ok, via, Results.round((System.nanoTime() - t0) / 1e9, 1));
		Suite.say("consistency audit: %s (%.1f s)", ok, c.seconds());
		return c;
	}

	/**
	 * Stops the service the run points at; keeps its log and GC log in the results
	 * directory, notes its collections, and drops its database unless it is to be kept.
	 */
	void stop(String db) throws Exception {
		Service service = this.suite.service;
		service.close();
		String log = Files.readString(service.log);
		long errorLines = log.lines().filter((l) -> l.contains(" ERROR ")).count();
		if (errorLines > 0) {
			this.suite.problems.add(errorLines + " ERROR lines in the service log " + service.log);
		}
		String which = db.contains("_scale_") ? db.substring(db.indexOf("_scale_") + 1) : "main";
		Path results = this.suite.resultsDir;
		String stamp = this.suite.stamp;
		Files.copy(service.log, results.resolve(stamp + "-" + which + "-service.log"),
				StandardCopyOption.REPLACE_EXISTING);
		Path gcLog = Service.gcLog(service.log);
		this.suite.notes.add("collections of the " + which + " service: " + Service.gcSummary(gcLog));
		if (Files.exists(gcLog)) {
			Files.copy(gcLog, results.resolve(stamp + "-" + which + "-service-gc.log"),
					StandardCopyOption.REPLACE_EXISTING);
		}
		boolean auditFailedHere = this.auditFailed;
		this.auditFailed = false;
		// The service checks a chunk cancelled at its query timeout again in halves, so its
		// audit passes; the slow chunk is still worth explaining on its own rows.
		long chunksCancelled = log.lines().filter((l) -> l.contains(AUDIT_CHUNK_CANCELLED)).count();
		if (chunksCancelled > 0) {
			this.suite.notes.add("audit of the " + which + " database: " + chunksCancelled
					+ " chunk(s) cancelled at the query timeout and checked again in halves (bounds in " + stamp + "-"
					+ which + "-service.log)");
		}
		if ((KEEP_MAIN_DATABASE && which.equals("main")) || auditFailedHere || chunksCancelled > 0) {
			// Recorded apart from the run's databases so that run.sh's clean-up leaves it too.
			Files.writeString(this.suite.runDir.resolve("kept"), db + "\n", StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
			this.suite.notes.add("kept the " + which + " database for inspection ("
					+ (auditFailedHere ? "its audit through the service failed"
							: (chunksCancelled > 0) ? "a chunk of its audit was cancelled" : "WG_BENCH_KEEP_MAIN_DB")
					+ "): " + db + "; drop it with: dropdb -h 127.0.0.1 -U postgres " + db);
		}
		else {
			Pg.dropDatabase(db);
		}
	}

}
