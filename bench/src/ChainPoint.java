import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Claim/complete down a chain of 1,000: each completion releases the next link. */
final class ChainPoint extends RecordPoint<Results.Chain> {

	static final int LINKS = 1000;

	@Override
	public void run(Suite suite) throws Exception {
		List<Double> seconds = new ArrayList<>();
		Load.Tally pooled = new Load.Tally();
		for (int rep = 0; rep < suite.mode.graphReps(); rep++) {
			String queue = "bench-chain-" + rep;
			suite.fixtures.chain(queue, LINKS);
			suite.pg.vacuumHot();
			List<String> titles = new ArrayList<>();
			Load.Tally t = suite.load.sequential("bench-chain", queue, LINKS, titles);
			suite.countErrors("chain", t);
			for (int i = 0; i < titles.size(); i++) {
				if (!("chain " + (i + 1)).equals(titles.get(i))) {
					suite.problems.add("chain: claim " + (i + 1) + " got '" + titles.get(i) + "'");
					break;
				}
			}
			if (titles.size() != LINKS || t.empty > 0) {
				suite.problems
					.add("chain: " + titles.size() + " of " + LINKS + " links claimed, " + t.empty + " empty claims");
			}
			seconds.add(t.seconds());
			pooled.merge(t);
		}
		this.result = new Results.Chain(LINKS, Results.Spread.of(seconds), Results.Latency.of(pooled.claim),
				Results.Latency.of(pooled.complete), pooled.errors);
		Suite.say("chain of %d: %s s end to end; per link claim %s ms, complete %s ms", LINKS,
				this.result.seconds().text(), this.result.claimMs().text(), this.result.completeMs().text());
	}

	@Override
	void table(Results.Chain c, Consumer<String> line) {
		line.accept("chain of " + c.links() + ": " + c.seconds().text() + " s, per link claim " + c.claimMs().text()
				+ " ms, complete " + c.completeMs().text() + " ms");
	}

}
