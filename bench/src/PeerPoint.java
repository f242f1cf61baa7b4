import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * graphile-worker, default mode, 32 concurrent jobs, on its own fresh database, in turns
 * with the service's wrk lifecycle and its chained point at 32 (the lifecycle at 32
 * connections as a worker that asks for its next item with each completion runs it: one
 * request per item). The lifecycle point runs half an hour earlier in a full run, and the
 * machine's speed has changed by half in that time. A turn runs graphile-worker, the
 * lifecycle, the chained point, and the next turn the other way round, so that each side is
 * as near the peer as the other over two turns. The chained point's record stands on its
 * own in the results; without graphile-worker it runs its repetitions alone.
 */
final class PeerPoint implements Point {

	static final int CONCURRENCY = 32;

	/** Best rate the peer reached, to size its supply of jobs. */
	private double peerRate = 3000;

	private Results.Peer peer;

	private Results.Chained chained;

	Results.Peer result() {
		return this.peer;
	}

	Results.Chained chained() {
		return this.chained;
	}

	@Override
	public void run(Suite suite) throws Exception {
		Repetitions chainedReps = new Repetitions(suite, "chained",
				Math.max(Suite.QUIET_SERVICE_RATE, suite.serviceRate), (seconds) -> suite.wrk.chained(32, seconds));
		this.peer = peer(suite, chainedReps);
		// The repetitions the peer's turns did not take, all of them without graphile-worker.
		chainedReps.upTo(suite.mode.repsAt32());
		Results.Side r = chainedReps.side();
		this.chained = new Results.Chained(32, r.itemsPerSecond(), r.claimMs(), r.completeMs(), r.errors(),
				r.cpuCores());
		Suite.say("chained: %s items/s (32 connections, the next claim with each completion)",
				this.chained.itemsPerSecond().text());
	}

	private Results.Peer peer(Suite suite, Repetitions chained) throws Exception {
		Peer peerRunner = new Peer(suite.benchDir.resolve("peer"));
		String why = peerRunner.install();
		if (why != null) {
			suite.problems.add("peer: " + why);
			return new Results.Peer(false, why, null, null, CONCURRENCY, 0, Results.Spread.none(), Double.NaN, 0, 0,
					Results.CpuCores.of(List.of()), null, Results.Spread.none(), Results.Spread.none());
		}
		String peerDb = suite.mainDb() + "_peer";
		Mode mode = suite.mode;
		List<Double> rates = new ArrayList<>();
		List<Cpu.Cores> cpu = new ArrayList<>();
		SideRuns service = new SideRuns("wrk", CONCURRENCY);
		List<Double> ratios = new ArrayList<>();
		List<Double> chainedRatios = new ArrayList<>();
		Peer.Run last = null;
		long failed = 0;
		for (int rep = 0; rep < mode.peerReps(); rep++) {
			boolean serviceFirst = rep % 2 == 1;
			if (serviceFirst) {
				chained.once();
				serviceBesidePeer(suite, service);
			}
			suite.probeMachine("peer");
			suite.services.createDatabase(peerDb);
			List<String> dbs = new ArrayList<>(suite.databases);
			dbs.add(peerDb);
			long jobs = (long) (Math.max(Suite.QUIET_PEER_RATE, this.peerRate * Suite.SUPPLY_FACTOR)
					* (mode.peerWarmSeconds() + mode.peerSeconds()));
			try {
				last = peerRunner.run(peerDb, CONCURRENCY, jobs, mode.peerWarmSeconds(), mode.peerSeconds(),
						suite.service.pid, dbs);
			}
			finally {
				Pg.dropDatabase(peerDb);
			}
			if (!serviceFirst) {
				serviceBesidePeer(suite, service);
				chained.once();
			}
			rates.add(last.jobsPerSecond());
			ratios.add(service.rates.get(rep) / last.jobsPerSecond());
			chainedRatios.add(chained.rate(rep) / last.jobsPerSecond());
			cpu.add(last.cpu());
			failed += last.failed();
			this.peerRate = Math.max(this.peerRate, last.jobsPerSecond());
			if (last.drained()) {
				suite.problems.add("peer: the jobs ran out within the window; the point is not valid");
			}
		}
		if (failed > 0) {
			suite.problems.add("peer: " + failed + " jobs failed");
		}
		if (service.empty > 0) {
			suite.problems.add("peer: the service's queue drained beside it (" + service.empty
					+ " empty claims); the point is not valid");
		}
		Results.Peer p = new Results.Peer(true, null, last.library(), last.mode(), CONCURRENCY, last.maxPoolSize(),
				Results.Spread.of(rates), last.windowSeconds(), mode.peerWarmSeconds(), failed,
				Results.CpuCores.of(cpu), service.side(), Results.Spread.of(ratios), Results.Spread.of(chainedRatios));
		Suite.say("peer %s at %d: %s jobs/s; in turns with it, wrk lifecycle %s items/s (ratio per turn %s), chained "
				+ "ratio per turn %s", p.library(), CONCURRENCY, p.jobsPerSecond().text(),
				p.serviceBeside().itemsPerSecond().text(), p.ratioPerTurn().runs(), p.chainedRatioPerTurn().runs());
		return p;
	}

	/** One repetition of the wrk lifecycle at the peer's concurrency, for the peer's ratio. */
	private static void serviceBesidePeer(Suite suite, SideRuns service) throws Exception {
		suite.probeMachine("peer (wrk lifecycle in turns)");
		ThroughputPoints.wrkSide(suite, service, CONCURRENCY, false, new ThroughputPoints.HeapPeak());
	}

	@Override
	public void results(Map<String, Object> into) {
		into.put("chained", this.chained);
		into.put("peer", this.peer);
	}

	@Override
	public void table(Consumer<String> line) {
		Results.Chained c = this.chained;
		if (c != null) {
			line.accept(String.format(Locale.ROOT,
					"chained (wrk, %d connections, the next claim with each completion): %s items/s, complete+next %s ms, "
							+ "claims after nothing came next %s ms, errors %d, cpu %s",
					c.connections(), c.itemsPerSecond().text(), c.completeMs().text(), c.claimMs().text(), c.errors(),
					c.cpuCores().text()));
		}
		Results.Peer p = this.peer;
		if (p != null) {
			line.accept(p.available()
					? String.format(Locale.ROOT,
							"peer %s, %s, concurrency %d (pool %d): %s jobs/s over %.0f s after %d s warm-up, "
									+ "failed %d, cpu %s; in turns with it, wrk lifecycle at %d: %s items/s, "
									+ "cpu %s, ratio per turn %s; chained in the same turns, ratio per turn %s",
							p.library(), p.mode(), p.concurrency(), p.maxPoolSize(), p.jobsPerSecond().text(),
							p.windowSeconds(), p.warmSeconds(), p.failedJobs(), p.cpuCores().text(), p.concurrency(),
							p.serviceBeside().itemsPerSecond().text(), p.serviceBeside().cpuCores().text(),
							p.ratioPerTurn().runs(), p.chainedRatioPerTurn().runs())
					: "peer: not available (" + p.unavailableBecause() + ")");
		}
	}

}
