import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Every item checkpointed once: claim, checkpoint, complete at 32 workers (wrk), in turns
 * with the plain claim → complete, so that the ratio of each turn says what the third
 * request and its immutable row cost.
 */
final class CheckpointedPoint extends RecordPoint<Results.Checkpointed> {

	static final int WORKERS = 32;

	@Override
	public void run(Suite suite) throws Exception {
		int seconds = suite.mode.pointSeconds();
		List<Double> checkpointed = new ArrayList<>();
		List<Double> plain = new ArrayList<>();
		List<Double> ratios = new ArrayList<>();
		List<Double> checkpointP99 = new ArrayList<>();
		long errors = 0;
		for (int rep = 0; rep < suite.mode.repsAt32(); rep++) {
			double plainRate = Double.NaN;
			double checkpointedRate = Double.NaN;
			// Alternate which goes first, so that a drifting machine hits both alike.
			for (boolean withCheckpoint : (rep % 2 == 0) ? List.of(false, true) : List.of(true, false)) {
				suite.fresh(Math.max(Suite.QUIET_SERVICE_RATE, suite.serviceRate * Suite.SUPPLY_FACTOR)
						* (seconds + suite.mode.pointWarmSeconds()));
				Wrk.Run warm = withCheckpoint ? suite.wrk.checkpointed(WORKERS, suite.mode.pointWarmSeconds())
						: suite.wrk.lifecycle(WORKERS, suite.mode.pointWarmSeconds(), false);
				suite.countErrors("checkpointed warm-up", warm);
				suite.endStrandedLeases();
				Wrk.Run r = withCheckpoint ? suite.wrk.checkpointed(WORKERS, seconds)
						: suite.wrk.lifecycle(WORKERS, seconds, false);
				suite.retire();
				suite.countErrors((withCheckpoint ? "checkpointed" : "lifecycle beside it") + " W=" + WORKERS, r);
				errors += r.errors();
				if (withCheckpoint) {
					checkpointedRate = r.itemsPerSecond();
					checkpointP99.add(r.renewMs().p99());
				}
				else {
					plainRate = r.itemsPerSecond();
				}
			}
			checkpointed.add(checkpointedRate);
			plain.add(plainRate);
			ratios.add(Results.round(checkpointedRate / plainRate, 3));
		}
		this.result = new Results.Checkpointed(WORKERS, Results.Spread.of(checkpointed), Results.Spread.of(plain),
				Results.Spread.of(ratios), Results.Spread.of(checkpointP99), errors);
		Suite.say("checkpointed W=%d: %s items/s, the lifecycle beside it %s, ratio per turn %s; checkpoint p99 %s ms",
				WORKERS, this.result.itemsPerSecond().text(), this.result.lifecycleItemsPerSecond().text(),
				this.result.ratioPerTurn().text(), this.result.checkpointP99Ms().text());
	}

	@Override
	void table(Results.Checkpointed c, Consumer<String> line) {
		line.accept("every item checkpointed once, W=" + c.connections() + ": " + c.itemsPerSecond().text()
				+ " items/s against " + c.lifecycleItemsPerSecond().text() + " without (x" + c.ratioPerTurn().text()
				+ " per turn), checkpoint p99 " + c.checkpointP99Ms().text() + " ms");
	}

	@Override
	public List<String> summary() {
		Results.Checkpointed c = this.result;
		return List.of("checkpointed_32=" + ((c == null) ? "na" : String.format(Locale.ROOT, "%.0f",
				c.itemsPerSecond().median())));
	}

}
