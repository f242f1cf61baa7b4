import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The human side of a run: the table, the targets (met / NOT MET) and the summary line,
 * all from the {@link Results} records.
 */
final class Report {

	private Report() {
	}

	/** The summary's figures, taken from the run's points (NaN where a point is missing). */
	static Results.Summary summary(List<Results.ThroughputPoint> throughput, Results.OpenLoop open,
			Results.Scale scale, Results.Reaper reaper, Results.Peer peer, Results.Batch batch,
			Results.Chained chained, long errors) {
		Results.ThroughputPoint p32 = point(throughput, "lifecycle", 32);
		Results.ThroughputPoint p128 = point(throughput, "lifecycle", 128);
		double raw32 = (p32 != null) ? p32.raw().itemsPerSecond().median() : Double.NaN;
		double wrk32 = (p32 != null) ? p32.wrk().itemsPerSecond().median() : Double.NaN;
		double jvm32 = (p32 != null) ? p32.jvm().itemsPerSecond().median() : Double.NaN;
		boolean withPeer = peer != null && peer.available();
		double peer32 = withPeer ? peer.jobsPerSecond().median() : Double.NaN;
		// The peer ratios take the service's rates measured in turns with graphile-worker (the
		// lifecycle point runs half an hour earlier, and the machine's speed drifts), and the
		// median of the turns' own ratios: each compares the sides at one speed of the machine,
		// where the median of each side alone can come from different turns.
		double wrkBeside = withPeer ? peer.serviceBeside().itemsPerSecond().median() : Double.NaN;
		double peerRatio = withPeer ? peer.ratioPerTurn().median() : Double.NaN;
		double chainedPeerRatio = withPeer ? peer.chainedRatioPerTurn().median() : Double.NaN;
		double batchRate = (batch != null && batch.available()) ? batch.itemsPerSecond().median() : Double.NaN;
		double chainedRate = (chained != null) ? chained.itemsPerSecond().median() : Double.NaN;
		return new Results.Summary(raw32, jvm32, Results.round(wrk32 / raw32, 3),
				(open != null) ? open.claimMs().p99() : Double.NaN, (open != null) ? open.completeMs().p99() : Double.NaN,
				(scale != null) ? scale.ratio() : Double.NaN,
				(reaper != null) ? reaper.secondsFromExpiry().max() : Double.NaN,
				(p128 != null) ? p128.peakHeapUsedMib() : Double.NaN, errors, wrk32, peer32,
				peerRatio, batchRate, chainedRate, chainedPeerRatio,
				(scale != null) ? scale.completeRatio() : Double.NaN, wrkBeside);
	}

	static Results.ThroughputPoint point(List<Results.ThroughputPoint> points, String variant, int workers) {
		return points.stream()
			.filter((p) -> p.variant().equals(variant) && p.workers() == workers)
			.findFirst()
			.orElse(null);
	}

	/** Throughput rows, the other points, the targets; ends without the summary line. */
	static String table(Results.Run run, Results.Summary summary) {
		StringBuilder out = new StringBuilder();
		Consumer<String> line = (s) -> out.append(s).append('\n');
		line.accept("");
		line.accept("items/s median [min–max]; latency ms p50/p99/p99.9 per request as the worker sees it; "
				+ "cpu = cores used by service/generator/PostgreSQL/others during the point; cpu ms/item = "
				+ "service and PostgreSQL CPU per completed item");
		line.accept(String.format(Locale.ROOT, "%-15s %4s %-13s | %-22s | %-20s | %-20s | %-20s | %5s | %4s | %-22s | %s",
				"variant", "W", "driver", "items/s", "claim ms", "renew ms", "complete ms", "/raw", "errs",
				"cpu svc/gen/pg/oth", "cpu ms/item svc+pg"));
		for (Results.ThroughputPoint p : run.throughput()) {
			List<Results.Side> sides = new ArrayList<>(List.of(p.raw(), p.wrk(), p.jvm()));
			if (p.rawWithViews() != null) {
				sides.add(p.rawWithViews());
			}
			for (Results.Side s : sides) {
				double vsRaw = s.itemsPerSecond().median() / p.raw().itemsPerSecond().median();
				String driver = s.generator() + ((s.clients() != p.workers()) ? " c=" + s.clients() : "");
				double rate = s.itemsPerSecond().median();
				line.accept(String.format(Locale.ROOT,
						"%-15s %4d %-13s | %-22s | %-20s | %-20s | %-20s | %5.2f | %4d | %-22s | %s+%s",
						p.variant(), p.workers(), driver, s.itemsPerSecond().text(), s.claimMs().text(),
						(s.renewMs().n() > 0) ? s.renewMs().text() : "", s.completeMs().text(), vsRaw, s.errors(),
						s.cpuCores().text(), Results.fmt(1000 * s.cpuCores().service().median() / rate),
						Results.fmt(1000 * s.cpuCores().postgres().median() / rate)));
			}
		}
		if (run.throughput().stream().anyMatch((p) -> p.rawWithViews() != null)) {
			line.accept("(pgbench+views: the lifecycle plus the reads that build the two answers, i.e. all the SQL the "
					+ "service runs per item, no HTTP)");
		}
		line.accept("");
		Results.Batch b = run.batch();
		if (b != null) {
			line.accept(b.available()
					? String.format(Locale.ROOT,
							"batch (wrk, %d connections, claim %d then complete them in one call): %s items/s, "
									+ "claim batch %s ms, completions %s ms, errors %d, cpu %s",
							b.connections(), b.batchSize(), b.itemsPerSecond().text(), b.claimBatchMs().text(),
							b.completionsMs().text(), b.errors(), b.cpuCores().text())
					: "batch: not available (" + b.unavailableBecause() + ")");
		}
		Results.Chained c = run.chained();
		if (c != null) {
			line.accept(String.format(Locale.ROOT,
					"chained (wrk, %d connections, the next claim with each completion): %s items/s, complete+next %s ms, "
							+ "claims after nothing came next %s ms, errors %d, cpu %s",
					c.connections(), c.itemsPerSecond().text(), c.completeMs().text(), c.claimMs().text(), c.errors(),
					c.cpuCores().text()));
		}
		Results.Peer peer = run.peer();
		if (peer != null) {
			line.accept(peer.available()
					? String.format(Locale.ROOT,
							"peer %s, %s, concurrency %d (pool %d): %s jobs/s over %.0f s after %d s warm-up, "
									+ "failed %d, cpu %s; in turns with it, wrk lifecycle at %d: %s items/s, "
									+ "cpu %s, ratio per turn %s; chained in the same turns, ratio per turn %s",
							peer.library(), peer.mode(), peer.concurrency(), peer.maxPoolSize(),
							peer.jobsPerSecond().text(), peer.windowSeconds(), peer.warmSeconds(), peer.failedJobs(),
							peer.cpuCores().text(), peer.concurrency(), peer.serviceBeside().itemsPerSecond().text(),
							peer.serviceBeside().cpuCores().text(), peer.ratioPerTurn().runs(),
							peer.chainedRatioPerTurn().runs())
					: "peer: not available (" + peer.unavailableBecause() + ")");
		}
		for (Results.OpenLoop o : new Results.OpenLoop[] { run.openLoop(), run.openLoopJvm() }) {
			if (o != null) {
				line.accept(String.format(Locale.ROOT,
						"open loop %.0f/s, %d workers (%s): achieved %s items/s, claim %s ms (from due), complete %s ms, "
								+ "unsent %d, errors %d, cpu %s",
						o.offeredPerSecond(), o.workers(), o.generator(), o.achievedPerSecond().text(), o.claimMs().text(),
						o.completeMs().text(), o.dueButUnsent(), o.errors(), o.cpuCores().text()));
			}
		}
		if (run.scale() != null) {
			for (var s : run.scale().sizes().values()) {
				line.accept(String.format(Locale.ROOT,
						"scale %,12d items: claim p50 %s ms, complete p50 %s ms, claim %s ms, complete %s ms", s.items(),
						s.claimP50MsPerRun().text(), s.completeP50MsPerRun().text(), s.claimMs().text(),
						s.completeMs().text()));
			}
		}
		if (run.chain() != null) {
			line.accept("chain of " + run.chain().links() + ": " + run.chain().seconds().text() + " s, per link claim "
					+ run.chain().claimMs().text() + " ms, complete " + run.chain().completeMs().text() + " ms");
		}
		if (run.fanIn() != null) {
			line.accept("fan-in " + run.fanIn().dependents() + ": releasing completion " + run.fanIn().completeMs().text()
					+ " ms");
		}
		if (run.reaper() != null) {
			StringBuilder runs = new StringBuilder();
			for (Results.ReaperRun r : run.reaper().runs()) {
				runs.append(String.format(Locale.ROOT,
						" [%.2f s, first recorded after %.2f s, checkpoint %s, autovacuum/analyze %d, WAL %.1f MB,"
								+ " cpu svc/pg/oth %s/%s/%s]",
						r.secondsFromExpiry(), r.firstRecordedAfterSeconds(), r.checkpointDuring() ? "yes" : "no",
						r.autovacuumsDuring(), r.walBytes() / 1e6, Results.fmt(r.cpuCores().service()), Results.fmt(r.cpuCores().postgres()),
						Results.fmt(r.cpuCores().others())));
			}
			line.accept("reaper " + run.reaper().leases() + ": " + run.reaper().secondsFromExpiry().text()
					+ " s from expiry to recorded + ready;" + runs);
		}
		if (run.service() != null) {
			line.accept("service (-Xms/-Xmx" + Service.HEAP + " " + Service.COLLECTOR + "): peak heap used " + Results.fmt(summary.heapMib())
					+ " MiB at 128 workers, peak RSS "
					+ Results.fmt(run.service().peakRssMib()) + " MiB, CPU " + Results.fmt(run.service().cpuSecondsTotal())
					+ " s, tokens: " + run.service().security() + "; " + text(run.service().consistency())
					+ (run.scale() != null ? ", scale db " + text(run.scale().consistency()) : ""));
		}
		Results.ThroughputPoint p32 = point(run.throughput(), "lifecycle", 32);
		line.accept("");
		line.accept("targets:");
		line.accept(target("wrk lifecycle >= 1.0 x graphile-worker at 32, in turns",
				summary.peerRatio32() >= 1.0, Results.fmt(summary.peerRatio32())));
		line.accept("  (wrk chained at 32, one request per item, in the same turns: "
				+ Results.fmt(summary.peerRatioChained32()) + " x graphile-worker at 32)");
		line.accept(target("wrk lifecycle at 32 >= 0.9 x raw pgbench at 32", summary.ratio32() >= 0.9,
				Results.fmt(summary.ratio32())));
		line.accept(target("batch (100 per call) >= 10,000 items/s", summary.batchItemsPerSecond() >= 10_000,
				Results.fmt(summary.batchItemsPerSecond())));
		if (p32 != null) {
			line.accept(target("claim p99 <= 25 ms at 32 closed-loop connections (wrk)", p32.wrk().claimMs().p99() <= 25,
					Results.fmt(p32.wrk().claimMs().p99()) + " ms"));
			line.accept(target("complete p99 <= 25 ms at 32 closed-loop connections (wrk)",
					p32.wrk().completeMs().p99() <= 25, Results.fmt(p32.wrk().completeMs().p99()) + " ms"));
		}
		line.accept(target("open loop 500 claims/s: claim p99 <= 10 ms (wrk)", summary.claimP99Ms() <= 10,
				Results.fmt(summary.claimP99Ms()) + " ms"));
		line.accept(target("scale ratio <= 1.3 (claim p50)", summary.scaleRatio() <= 1.3,
				Results.fmt(summary.scaleRatio())));
		line.accept(target("scale ratio <= 1.3 (complete p50)", summary.scaleCompleteRatio() <= 1.3,
				Results.fmt(summary.scaleCompleteRatio())));
		line.accept(target("reaper 10k <= 2 s (every repetition)", summary.reaper10kSeconds() <= 2,
				Results.fmt(summary.reaper10kSeconds()) + " s"));
		line.accept(target("heap <= 256 MiB at 128 workers (-Xms/-Xmx" + Service.HEAP + ")",
				summary.heapMib() <= 256,
				Results.fmt(summary.heapMib()) + " MiB"));
		line.accept(target("errors 0", summary.errors() == 0, String.valueOf(summary.errors())));
		if (!run.problems().isEmpty()) {
			line.accept("");
			line.accept("problems:");
			run.problems().forEach((p) -> line.accept("  - " + p));
		}
		if (!run.notes().isEmpty()) {
			line.accept("");
			line.accept("notes:");
			run.notes().forEach((p) -> line.accept("  - " + p));
		}
		line.accept("");
		line.accept("processor " + run.machine().cpuModel() + " (" + run.machine().cpus() + " CPUs); kernel memory monitor (DAMON): "
				+ run.machine().memoryMonitor());
		line.accept("load average before " + run.machine().loadBefore() + ", after " + run.machine().loadAfter()
				+ "; duration " + Results.fmt(run.durationSeconds()) + " s");
		return out.toString();
	}

	static String target(String what, boolean met, String value) {
		String verdict = value.startsWith("-") ? "not measured in this run" : met ? "met" : "NOT MET";
		return String.format(Locale.ROOT, "  %-58s %-12s %s", what, value, verdict);
	}

	static String text(Results.Consistency c) {
		return (c == null) ? "-"
				: (c.consistent() ? "consistent" : "INCONSISTENT") + " (" + c.via() + ", " + Results.fmt(c.seconds())
						+ " s)";
	}

}
