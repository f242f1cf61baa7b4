import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Claim latency as the table grows: at each size most items are completed or blocked and a
 * fixed supply is ready; one worker claims and completes (per-claim cost, no queueing), the
 * same number of claims at every size.
 *
 * <p>
 * Each size has its own service and database, and the sizes are measured in turns, a
 * repetition of each in every round, as the throughput points rotate their sides: one
 * worker's latency on this machine drifts by a third within a minute, and the same
 * 10^6-item table gave claim p50s from 2.4 down to 1.4 ms in the minute after its fill, so
 * sizes measured one after the other compared the moments more than the tables.
 */
final class ScalePoint extends RecordPoint<Results.Scale> {

	/**
	 * Lifecycles each scale service runs before its fill. Cold, the first size measured the
	 * JIT compiler, not the table: claim p50 3.3-7.8 ms at 1,000 items against 1.5 ms once
	 * warm.
	 */
	static final int WARM_LIFECYCLES = 4_000;

	/** Lifecycles at each scale size between its fill and its measurement. */
	static final int SIZE_WARM_LIFECYCLES = 10;

	/** Blocks this database's backends read from outside shared_buffers. */
	static final String BLOCKS_READ = "select blks_read from pg_stat_database where datname = current_database()";

	/**
	 * PostgreSQL's backends report their statistics at most once a second while busy and
	 * within ten seconds once idle: a counter read sooner misses the last of the work.
	 */
	static final Duration STATISTICS_FLUSHED = Duration.ofSeconds(11);

	/** What one size measured over its turns. */
	static final class Tally {

		final List<Double> claimP50 = new ArrayList<>();

		final List<Double> completeP50 = new ArrayList<>();

		final Load.Tally pooled = new Load.Tally();

		double fillSeconds;

		long blocksReadBefore;

	}

	@Override
	public boolean ownServices() {
		return true;
	}

	@Override
	public void run(Suite suite) throws Exception {
		long[] sizeList = suite.mode.sizes();
		int n = sizeList.length;
		List<String> dbs = new ArrayList<>();
		List<Service> services = new ArrayList<>();
		for (long size : sizeList) {
			dbs.add(suite.mainDb() + "_scale_" + size);
			services.add(suite.services.launch(dbs.getLast(), suite.adminToken));
		}
		List<Services.Attached> sides = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			sides.add(suite.services.attach(services.get(i), dbs.get(i), suite.adminToken, Suite.OTHER_WORKERS));
		}
		long supply = (long) suite.mode.scaleClaims() * suite.mode.scaleReps() + SIZE_WARM_LIFECYCLES;
		List<Tally> tallies = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			Tally tally = new Tally();
			tally.fillSeconds = warmAndFill(suite, sizeList[i], sides.get(i), supply);
			tallies.add(tally);
		}
		Thread.sleep(STATISTICS_FLUSHED);
		for (int i = 0; i < n; i++) {
			tallies.get(i).blocksReadBefore = sides.get(i).pg().count(BLOCKS_READ);
		}
		Pg server = sides.getFirst().pg();
		long checkpointsBefore = server.count(Pg.CHECKPOINTS);
		for (int rep = 0; rep < suite.mode.scaleReps(); rep++) {
			for (int k = 0; k < n; k++) {
				// Each round starts with another size, so none is always measured first.
				int i = (rep + k) % n;
				Load.Tally t = sides.get(i).load().sequential("bench-scale", null, suite.mode.scaleClaims(),
						new ArrayList<>());
				suite.countErrors("scale " + sizeList[i], t);
				tallies.get(i).claimP50.add(t.claim.percentileMs(50));
				tallies.get(i).completeP50.add(t.complete.percentileMs(50));
				tallies.get(i).pooled.merge(t);
			}
		}
		long checkpointsDuring = server.count(Pg.CHECKPOINTS) - checkpointsBefore;
		if (checkpointsDuring > 0) {
			suite.notes.add("scale: " + checkpointsDuring + " checkpoint(s) ended while the sizes were measured");
		}
		Thread.sleep(STATISTICS_FLUSHED);
		Map<String, Results.ScaleSize> sizes = new LinkedHashMap<>();
		for (int i = 0; i < n; i++) {
			Services.Attached side = sides.get(i);
			Tally tally = tallies.get(i);
			Load.Tally all = tally.pooled;
			long blocksRead = side.pg().count(BLOCKS_READ) - tally.blocksReadBefore;
			Results.ScaleSize point = new Results.ScaleSize(side.pg().count("select count(*) from work_items"),
					supply, Results.round(tally.fillSeconds, 1), Results.Spread.of(tally.claimP50),
					Results.Spread.of(tally.completeP50), Results.Latency.of(all.claim),
					Results.Latency.of(all.complete), all.errors, checkpointsDuring,
					Results.round((double) blocksRead / Math.max(1, all.items), 1));
			sizes.put(String.valueOf(sizeList[i]), point);
			Suite.say("scale %,d items: claim p50 %s ms, complete p50 %s ms, claim %s ms, complete %s ms, %.1f blocks"
					+ " read from outside shared_buffers per item", point.items(), point.claimP50MsPerRun().text(),
					point.completeP50MsPerRun().text(), point.claimMs().text(), point.completeMs().text(),
					point.blocksReadPerItem());
		}
		Results.ScaleSize first = sizes.get(String.valueOf(sizeList[0]));
		Results.ScaleSize last = sizes.get(String.valueOf(sizeList[n - 1]));
		Results.Consistency consistency = null;
		Results.ServiceInfo info = null;
		for (int i = n - 1; i >= 0; i--) {
			Services.Attached side = sides.get(i);
			suite.enter(side);
			if (i == n - 1) {
				// The audit of the largest table, the one that could be wrong in ways the
				// smaller ones cannot.
				consistency = suite.services.audit();
				info = suite.services.info(side.db(), consistency, side.service().cpuSeconds());
			}
			suite.services.stop(side.db());
		}
		this.result = new Results.Scale(sizes,
				Results.round(last.claimP50MsPerRun().median() / first.claimP50MsPerRun().median(), 3),
				Results.round(last.completeP50MsPerRun().median() / first.completeP50MsPerRun().median(), 3),
				"median p50 (claim; complete) at the largest size / at the smallest, the sizes measured in turns",
				consistency, info);
	}

	/** Warms a scale size's service up, then fills its table; returns the fill's seconds. */
	private static double warmAndFill(Suite suite, long size, Services.Attached side, long supply) throws Exception {
		// Cold, a service's first claims measure the JIT compiler. The warm-up's items stay,
		// completed, as the bulk history does: the smallest size holds about 4,400 items.
		side.fixtures().readySupply(Suite.QUEUE, WARM_LIFECYCLES);
		long warmStart = System.nanoTime();
		suite.countErrors("scale warm-up " + size,
				side.load().sequential("bench-scale", null, WARM_LIFECYCLES, new ArrayList<>()));
		long t0 = System.nanoTime();
		long existing = side.pg().count("select count(*) from work_items");
		long history = Math.max(0, size - existing - supply);
		long blocked = history / 20; // 5% blocked, 95% completed
		side.fixtures().bulkHistory(history - blocked, blocked);
		side.fixtures().readySupply(Suite.QUEUE, supply);
		side.pg().sql("vacuum (analyze) ready_items, leases; analyze work_items, dependencies, lease_history;");
		// The fill writes hundreds of MB of WAL, enough to start a checkpoint that then
		// flushes its pages for ten to twenty seconds: flushed here instead, before any size
		// is measured.
		side.pg().sql("checkpoint;");
		double fillSeconds = (System.nanoTime() - t0) / 1e9;
		side.load().sequential("bench-scale", null, SIZE_WARM_LIFECYCLES, new ArrayList<>());
		Suite.say("scale %,d: service pid %d on :%d warmed up (%,d lifecycles in %.0f s), filled in %.0f s", size,
				side.service().pid, side.service().port, WARM_LIFECYCLES, (t0 - warmStart) / 1e9, fillSeconds);
		return fillSeconds;
	}

	@Override
	void table(Results.Scale scale, Consumer<String> line) {
		for (Results.ScaleSize s : scale.sizes().values()) {
			line.accept(String.format(Locale.ROOT,
					"scale %,12d items: claim p50 %s ms, complete p50 %s ms, claim %s ms, complete %s ms", s.items(),
					s.claimP50MsPerRun().text(), s.completeP50MsPerRun().text(), s.claimMs().text(),
					s.completeMs().text()));
		}
	}

}
