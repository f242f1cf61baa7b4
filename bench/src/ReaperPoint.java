import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * 10,000 leases expiring at once: from their expiry until all are recorded and ready.
 * Each repetition also records what could make it slow: a checkpoint during it, the WAL it
 * wrote, dead rows in the tables the reaper reads.
 */
final class ReaperPoint extends RecordPoint<Results.Reaper> {

	static final int LEASES = 10_000;

	/**
	 * Autovacuum and autoanalyze runs finished on the tables a burst of expiries churns:
	 * the difference over a repetition says whether one ran beside it.
	 */
	static final String AUTOVACUUMS_OF_HOT_TABLES = """
			select coalesce(sum(autovacuum_count + autoanalyze_count), 0) from pg_stat_user_tables
			where relname in ('work_items', 'leases', 'lease_history', 'ready_items')
			""";

	@Override
	public void run(Suite suite) throws Exception {
		int n = LEASES;
		List<Double> seconds = new ArrayList<>();
		List<Results.ReaperRun> runs = new ArrayList<>();
		for (int rep = 0; rep < suite.mode.reaperReps(); rep++) {
			String queue = "bench-reaper-" + rep;
			suite.pg.vacuumHot();
			long autoBefore = suite.pg.count(AUTOVACUUMS_OF_HOT_TABLES);
			double expiresAt = suite.fixtures.leasedExpiringTogether(queue, n, 2);
			String[] before = suite.pg.sql("""
					select (%s) || ' ' || pg_current_wal_lsn()::text
					""".formatted(Pg.CHECKPOINTS)).split(" ");
			double[] at;
			Cpu.Cores cores;
			try (Cpu cpu = new Cpu(suite.service.pid, () -> 0, suite.databases)) {
				at = suite.fixtures.awaitReaped(queue, n, 120);
				cores = cpu.cores();
			}
			String[] after = suite.pg.sql("""
					select (%s)
					    || ' ' || pg_wal_lsn_diff(pg_current_wal_lsn(), '%s')::bigint
					    || ' ' || (select n_dead_tup from pg_stat_user_tables where relname = 'leases')
					    || ' ' || (select n_dead_tup from pg_stat_user_tables where relname = 'work_items')
					""".formatted(Pg.CHECKPOINTS, before[1])).split(" ");
			long autovacuums = suite.pg.count(AUTOVACUUMS_OF_HOT_TABLES) - autoBefore;
			seconds.add(at[1] - expiresAt);
			runs.add(new Results.ReaperRun(Results.round(at[1] - expiresAt, 3), Results.round(at[0] - expiresAt, 3),
					!after[0].equals(before[0]), Long.parseLong(after[1]), Long.parseLong(after[2]),
					Long.parseLong(after[3]), autovacuums, cores));
			long recorded = suite.fixtures.expiredInHistory(queue);
			if (recorded != n) {
				suite.problems.add("reaper: " + recorded + " of " + n + " leases in lease_history as expired");
			}
			suite.fixtures.retireReady(queue);
		}
		this.result = new Results.Reaper(n, Results.Spread.of(seconds), "1s (default)", runs);
		Suite.say("reaper: %d leases expiring together recorded and ready again %s s after expiry; %s", n,
				this.result.secondsFromExpiry().text(), runs);
	}

	@Override
	void table(Results.Reaper reaper, Consumer<String> line) {
		StringBuilder runs = new StringBuilder();
		for (Results.ReaperRun r : reaper.runs()) {
			runs.append(String.format(Locale.ROOT,
					" [%.2f s, first recorded after %.2f s, checkpoint %s, autovacuum/analyze %d, WAL %.1f MB,"
							+ " cpu svc/pg/oth %s/%s/%s]",
					r.secondsFromExpiry(), r.firstRecordedAfterSeconds(), r.checkpointDuring() ? "yes" : "no",
					r.autovacuumsDuring(), r.walBytes() / 1e6, Results.fmt(r.cpuCores().service()),
					Results.fmt(r.cpuCores().postgres()), Results.fmt(r.cpuCores().others())));
		}
		line.accept("reaper " + reaper.leases() + ": " + reaper.secondsFromExpiry().text()
				+ " s from expiry to recorded + ready;" + runs);
	}

}
