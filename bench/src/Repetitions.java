/**
 * Repetitions of one wrk point at 32, taken one at a time: each a fresh supply sized by
 * the best rate seen so far (at least the quiet rate), a warm-up run, then the measured
 * run; what a run leaves ready or leased is retired before the next.
 */
final class Repetitions {

	/** One wrk point, run for the given seconds. */
	interface WrkPoint {

		Wrk.Run run(int seconds) throws Exception;

	}

	private final Suite suite;

	private final String name;

	private final WrkPoint point;

	private double best;

	private final SideRuns runs = new SideRuns("wrk", 32);

	Repetitions(Suite suite, String name, double quietRate, WrkPoint point) {
		this.suite = suite;
		this.name = name;
		this.best = quietRate;
		this.point = point;
	}

	/** The mode's repetitions at 32 of a wrk point with a supply of its own, all in a row. */
	static Results.Side inARow(Suite suite, String name, double quietRate, WrkPoint point) throws Exception {
		Repetitions reps = new Repetitions(suite, name, quietRate, point);
		reps.upTo(suite.mode.repsAt32());
		return reps.side();
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

	/** Runs repetitions until there are this many. */
	void upTo(int count) throws Exception {
		while (count() < count) {
			once();
		}
	}

	void once() throws Exception {
		Mode mode = this.suite.mode;
		this.suite.probeMachine(this.name);
		this.suite.fresh(this.best * Suite.SUPPLY_FACTOR * (mode.pointSeconds() + mode.pointWarmSeconds()));
		this.point.run(mode.pointWarmSeconds());
		this.suite.endStrandedLeases();
		Wrk.Run r = this.point.run(mode.pointSeconds());
		this.suite.retire();
		this.runs.add(r);
		this.best = Math.max(this.best, r.itemsPerSecond());
		this.suite.countErrors(this.name, r);
		if (r.emptyClaims() > 0) {
			this.suite.problems
				.add(this.name + ": the queue drained (" + r.emptyClaims() + " empty claims); not valid");
		}
	}

}
