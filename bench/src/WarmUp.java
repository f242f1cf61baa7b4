import java.util.ArrayList;
import java.util.List;

/**
 * The main service's warm-up, before its points. C2 needs minutes, not seconds, on this
 * box before the service runs at its speed (its compile queue still held work 90 s into
 * the load, and the service's CPU per item fell by a third between the first and the third
 * minute): wrk at 32 connections in slices of 10 s, at least the mode's warm-up time, until
 * a slice is no faster than the best before it by more than 3 %; then the JVM generator
 * (its own JIT) and pgbench, none of it counted. The rates it saw size the first supplies.
 */
final class WarmUp {

	/** The longest the warm-up may take, in slices of {@link #SLICE_SECONDS}. */
	static final int MAX_SECONDS = 240;

	static final int SLICE_SECONDS = 10;

	private WarmUp() {
	}

	static void run(Suite suite) throws Exception {
		int seconds = suite.mode.warmSeconds();
		Suite.say("warm-up: wrk at 32 connections for %d-%d s (until its rate settles), 5 s JVM generator at 32 workers,"
				+ " 5 s pgbench at 32 clients", seconds, MAX_SECONDS);
		Wrk.Run w = null;
		double best = 0;
		List<Long> slices = new ArrayList<>();
		for (int spent = 0; spent < MAX_SECONDS; spent += SLICE_SECONDS) {
			// As for a point: a slice that drained its supply would read as settled.
			suite.fresh(Math.max(Suite.QUIET_SERVICE_RATE, best * Suite.SUPPLY_FACTOR) * SLICE_SECONDS);
			w = suite.wrk.lifecycle(32, SLICE_SECONDS, false);
			suite.countErrors("warm-up (wrk)", w);
			suite.retire();
			slices.add(Math.round(w.itemsPerSecond()));
			boolean settled = w.itemsPerSecond() <= best * 1.03;
			best = Math.max(best, w.itemsPerSecond());
			if (settled && spent + SLICE_SECONDS >= seconds) {
				break;
			}
		}
		Suite.say("warm-up slices (items/s, %d s each): %s", SLICE_SECONDS, slices);
		suite.fresh(Suite.QUIET_SERVICE_RATE * 5);
		Load.Tally t = suite.load.closedLoop(32, 5, false);
		suite.countErrors("warm-up (jvm)", t);
		suite.retire();
		suite.fresh(Suite.QUIET_RAW_RATE * 5 * 2);
		Pg.PgbenchResult r = suite.pg.pgbench(suite.scripts.get("lifecycle"), 32, 5);
		suite.retire();
		suite.serviceRate = Math.max(w.itemsPerSecond(), t.itemsPerSecond());
		suite.rawRate = r.tps();
		Suite.say("warm-up rates: wrk %.0f items/s, jvm %.0f items/s, raw %.0f items/s", w.itemsPerSecond(),
				t.itemsPerSecond(), r.tps());
	}

}
