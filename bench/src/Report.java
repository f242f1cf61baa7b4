import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The human side of a run: the table (each point prints its own lines), the targets (met /
 * NOT MET) and the summary line, from the points' {@link Results} records.
 */
final class Report {

	private Report() {
	}

	/** The summary's figures, taken from the run's points (NaN where a point is missing). */
	static Results.Summary summary(Bench bench) {
		Results.ThroughputPoint p32 = bench.throughput.point("lifecycle", 32);
		Results.ThroughputPoint p128 = bench.throughput.point("lifecycle", 128);
		Results.OpenLoop open = bench.openLoop.result();
		Results.Scale scale = bench.scale.result();
		Results.Reaper reaper = bench.reaper.result();
		Results.Peer peer = bench.peer.result();
		Results.Batch batch = bench.batch.result();
		Results.Chained chained = bench.peer.chained();
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
				(p128 != null) ? p128.peakHeapUsedMib() : Double.NaN, bench.suite.serviceErrors, wrk32, peer32,
				peerRatio, batchRate, chainedRate, chainedPeerRatio,
				(scale != null) ? scale.completeRatio() : Double.NaN, wrkBeside,
				bench.points.stream().flatMap((p) -> p.summary().stream()).toList());
	}

	/**
	 * The points' lines in the order {@link Bench#points} lists them, the main service, the
	 * targets, what went wrong and the machine; ends without the summary line.
	 */
	static String table(Bench bench, Results.Summary summary, Results.Machine machine, double durationSeconds) {
		StringBuilder out = new StringBuilder();
		Consumer<String> line = (s) -> out.append(s).append('\n');
		line.accept("");
		for (Point point : bench.points) {
			point.table(line);
		}
		Results.ServiceInfo service = bench.serviceInfo;
		Results.Scale scale = bench.scale.result();
		if (service != null) {
			line.accept("service (-Xms/-Xmx" + Service.HEAP + " " + Service.COLLECTOR + "): peak heap used "
					+ Results.fmt(summary.heapMib()) + " MiB at 128 workers, peak RSS "
					+ Results.fmt(service.peakRssMib()) + " MiB, CPU " + Results.fmt(service.cpuSecondsTotal())
					+ " s, tokens: " + service.security() + "; " + text(service.consistency())
					+ ((scale != null) ? ", scale db " + text(scale.consistency()) : ""));
		}
		Results.ThroughputPoint p32 = bench.throughput.point("lifecycle", 32);
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
		for (Point point : bench.points) {
			point.targets(line);
		}
		line.accept(target("errors 0", summary.errors() == 0, String.valueOf(summary.errors())));
		List<String> problems = bench.suite.problems;
		if (!problems.isEmpty()) {
			line.accept("");
			line.accept("problems:");
			problems.forEach((p) -> line.accept("  - " + p));
		}
		List<String> notes = bench.suite.notes;
		if (!notes.isEmpty()) {
			line.accept("");
			line.accept("notes:");
			notes.forEach((p) -> line.accept("  - " + p));
		}
		line.accept("");
		line.accept("processor " + machine.cpuModel() + " (" + machine.cpus() + " CPUs); kernel memory monitor (DAMON): "
				+ machine.memoryMonitor());
		line.accept("load average before " + machine.loadBefore() + ", after " + machine.loadAfter() + "; duration "
				+ Results.fmt(durationSeconds) + " s");
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
