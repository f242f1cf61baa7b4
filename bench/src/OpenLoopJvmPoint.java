import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The open loop's offered load from the JVM generator (the realistic client). */
final class OpenLoopJvmPoint extends RecordPoint<Results.OpenLoop> {

	@Override
	public void run(Suite suite) throws Exception {
		int workers = OpenLoopPoint.WORKERS;
		double rate = OpenLoopPoint.RATE;
		Mode mode = suite.mode;
		Load.Tally pooled = new Load.Tally();
		List<Double> achieved = new ArrayList<>();
		List<Cpu.Cores> cpu = new ArrayList<>();
		long unsent = 0;
		for (int rep = 0; rep < mode.openReps(); rep++) {
			suite.fresh(rate * mode.openSeconds() + 2000);
			Load.Tally t;
			try (Cpu meter = new Cpu(suite.service.pid, Cpu::self, suite.databases)) {
				t = suite.load.openLoop(workers, rate, mode.openSeconds());
				cpu.add(meter.cores());
			}
			suite.fixtures.retireReady(Suite.QUEUE);
			suite.countErrors("open loop (jvm)", t);
			pooled.merge(t);
			achieved.add(t.itemsPerSecond());
			unsent += t.unsent;
		}
		if (unsent > 0) {
			suite.notes.add("open loop (jvm): " + unsent + " claims were still unsent when the window closed");
		}
		this.result = new Results.OpenLoop("jvm", rate, workers, mode.openSeconds(), Results.Spread.of(achieved),
				Results.Latency.of(pooled.claim), Results.Latency.of(pooled.complete), pooled.errors, pooled.empty,
				unsent, Results.CpuCores.of(cpu));
		Suite.say("open loop 500/s, 32 JVM workers: claim %s ms, complete %s ms (p50/p99/p99.9), errors %d",
				this.result.claimMs().text(), this.result.completeMs().text(), this.result.errors());
	}

	@Override
	void table(Results.OpenLoop result, Consumer<String> line) {
		line.accept(result.text());
	}

}
