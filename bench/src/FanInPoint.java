import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** 10,000 dependents on one item: the completion that releases them all. */
final class FanInPoint extends RecordPoint<Results.FanIn> {

	static final int DEPENDENTS = 10_000;

	@Override
	public void run(Suite suite) throws Exception {
		int n = DEPENDENTS;
		List<Double> ms = new ArrayList<>();
		for (int rep = 0; rep < suite.mode.graphReps(); rep++) {
			String hubs = "bench-fanin-" + rep;
			String dependents = "bench-fanout-" + rep;
			suite.fixtures.fanIn(hubs, dependents, n);
			suite.pg.vacuumHot();
			Load.Claimed hub = suite.load.claim("bench-fanin", hubs);
			if (hub.status() != 201) {
				suite.serviceErrors++;
				suite.problems.add("fan-in: claiming the hub -> " + hub.status() + " " + Load.abbreviate(hub.body()));
				continue;
			}
			long t0 = System.nanoTime();
			var r = suite.load.complete("bench-fanin", hub.leaseId(), hub.epoch());
			double took = (System.nanoTime() - t0) / 1e6;
			if (r.statusCode() != 200) {
				suite.serviceErrors++;
				suite.problems.add("fan-in: completing the hub -> " + r.statusCode() + " " + Load.abbreviate(r.body()));
				continue;
			}
			long ready = suite.pg.count("select count(*) from work_items where queue = '" + dependents
					+ "' and status = 'ready'");
			long queued = suite.pg.count("select count(*) from ready_items where queue = '" + dependents + "'");
			if (ready != n || queued != n) {
				suite.problems.add("fan-in: after the completion " + ready + " dependents ready, " + queued
						+ " queued, of " + n);
			}
			ms.add(took);
			suite.fixtures.retireReady(dependents);
		}
		this.result = new Results.FanIn(n, Results.Spread.of(ms));
		Suite.say("fan-in of %d: the releasing completion took %s ms", n, this.result.completeMs().text());
	}

	@Override
	void table(Results.FanIn f, Consumer<String> line) {
		line.accept("fan-in " + f.dependents() + ": releasing completion " + f.completeMs().text() + " ms");
	}

}
