import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Claims of 100 in one call, completed with one call, per wrk connection. Reports itself
 * as not available while the service has no batch endpoints (404).
 */
final class BatchPoint extends RecordPoint<Results.Batch> {

	static final int BATCH_SIZE = 100;

	static final int CONNECTIONS = 8;

	@Override
	public void run(Suite suite) throws Exception {
		suite.fresh(2000);
		Wrk.Run probe = suite.wrk.batch(1, 1, BATCH_SIZE);
		suite.retire();
		if (probe.notFound() > 0) {
			Suite.say("batch: not available (POST /claims/batch or POST /completions answered 404)");
			this.result = new Results.Batch(false,
					"endpoint missing: POST /claims/batch or POST /completions answered 404", BATCH_SIZE, CONNECTIONS,
					Results.Spread.none(), Results.Latency.none(), Results.Latency.none(), 0,
					Results.CpuCores.of(List.of()));
			return;
		}
		Results.Side reps = Repetitions.inARow(suite, "batch", Suite.QUIET_BATCH_RATE,
				(seconds) -> suite.wrk.batch(CONNECTIONS, seconds, BATCH_SIZE));
		this.result = new Results.Batch(true, null, BATCH_SIZE, CONNECTIONS, reps.itemsPerSecond(), reps.claimMs(),
				reps.completeMs(), reps.errors(), reps.cpuCores());
		Suite.say("batch: %s items/s (%d connections, %d per call)", this.result.itemsPerSecond().text(), CONNECTIONS,
				BATCH_SIZE);
	}

	@Override
	void table(Results.Batch b, Consumer<String> line) {
		line.accept(b.available()
				? String.format(Locale.ROOT,
						"batch (wrk, %d connections, claim %d then complete them in one call): %s items/s, "
								+ "claim batch %s ms, completions %s ms, errors %d, cpu %s",
						b.connections(), b.batchSize(), b.itemsPerSecond().text(), b.claimBatchMs().text(),
						b.completionsMs().text(), b.errors(), b.cpuCores().text())
				: "batch: not available (" + b.unavailableBecause() + ")");
	}

}
