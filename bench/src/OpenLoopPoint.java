import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** 500 claims/s due from 32 wrk connections, each followed by its complete; latency from when due. */
final class OpenLoopPoint extends RecordPoint<Results.OpenLoop> {

	static final int WORKERS = 32;

	static final double RATE = 500;

	@Override
	public void run(Suite suite) throws Exception {
		Mode mode = suite.mode;
		List<Double> achieved = new ArrayList<>();
		List<Results.Latency> claims = new ArrayList<>();
		List<Results.Latency> completes = new ArrayList<>();
		List<Cpu.Cores> cpu = new ArrayList<>();
		long errors = 0;
		long empty = 0;
		long unsent = 0;
		for (int rep = 0; rep < mode.openReps(); rep++) {
			suite.fresh(RATE * (mode.openSeconds() + mode.pointWarmSeconds()) + 2000);
			suite.wrk.openLoop(WORKERS, RATE, mode.pointWarmSeconds());
			suite.endStrandedLeases();
			Wrk.Run r = suite.wrk.openLoop(WORKERS, RATE, mode.openSeconds());
			suite.retire();
			achieved.add(r.itemsPerSecond());
			claims.add(r.claimMs());
			completes.add(r.completeMs());
			cpu.add(r.cpu());
			errors += r.errors() + r.socketErrors();
			empty += r.emptyClaims();
			unsent += Math.max(0, r.due() - r.sent());
			suite.countErrors("open loop (wrk)", r);
		}
		if (unsent > 0) {
			suite.notes.add("open loop (wrk): the service did not keep up with 500/s: " + unsent
					+ " claims were still unsent when the window closed (latencies are of those sent, from when due)");
		}
		this.result = new Results.OpenLoop("wrk", RATE, WORKERS, mode.openSeconds(), Results.Spread.of(achieved),
				Results.Latency.worst(claims), Results.Latency.worst(completes), errors, empty, unsent,
				Results.CpuCores.of(cpu));
		Suite.say("open loop 500/s, 32 wrk connections: claim %s ms, complete %s ms (p50/p99/p99.9), unsent %d, errors %d",
				this.result.claimMs().text(), this.result.completeMs().text(), unsent, errors);
	}

	@Override
	void table(Results.OpenLoop result, Consumer<String> line) {
		line.accept(result.text());
	}

}
