import java.util.List;
import java.util.Map;

/**
 * What a run measured, as records: each {@link Point} keeps its own, {@link Json} writes
 * the results file from them (component by component, see {@link Bench#results}) and the
 * points and {@link Report} print the table, the targets and the summary line from them.
 * Times are milliseconds, rates per second, CPU in cores.
 */
final class Results {

	private Results() {
	}

	/** Median, min, max of the repetitions of one figure, and the repetitions. */
	record Spread(double median, double min, double max, List<Double> runs) {

		static Spread of(List<Double> xs) {
			double[] v = xs.stream().mapToDouble(Double::doubleValue).toArray();
			return new Spread(round(Samples.median(v), 2),
					round(xs.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN), 2),
					round(xs.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN), 2),
					xs.stream().map((x) -> round(x, 2)).toList());
		}

		static Spread none() {
			return of(List.of());
		}

		String text() {
			if (this.runs.size() <= 1) {
				return fmt(this.median);
			}
			return fmt(this.median) + " [" + fmt(this.min) + "–" + fmt(this.max) + "]";
		}

	}

	/** Latency percentiles of one kind of request, pooled over the repetitions. */
	record Latency(long n, double p50, double p99, double p999) {

		static Latency of(Samples s) {
			return new Latency(s.size(), round(s.percentileMs(50), 2), round(s.percentileMs(99), 2),
					round(s.percentileMs(99.9), 2));
		}

		static Latency none() {
			return new Latency(0, Double.NaN, Double.NaN, Double.NaN);
		}

		/** Pools repetitions: percentiles of percentiles are not percentiles, so the worst. */
		static Latency worst(List<Latency> runs) {
			List<Latency> real = runs.stream().filter((l) -> l.n() > 0).toList();
			if (real.isEmpty()) {
				return none();
			}
			return new Latency(real.stream().mapToLong(Latency::n).sum(),
					Samples.median(real.stream().mapToDouble(Latency::p50).toArray()),
					real.stream().mapToDouble(Latency::p99).max().orElseThrow(),
					real.stream().mapToDouble(Latency::p999).max().orElseThrow());
		}

		String text() {
			return fmt(this.p50) + "/" + fmt(this.p99) + "/" + fmt(this.p999);
		}

	}

	/** Cores used during a point, per category (see {@link Cpu}), median over repetitions. */
	record CpuCores(Spread service, Spread generator, Spread postgres, Spread others) {

		static CpuCores of(List<Cpu.Cores> runs) {
			return new CpuCores(Spread.of(runs.stream().map(Cpu.Cores::service).toList()),
					Spread.of(runs.stream().map(Cpu.Cores::generator).toList()),
					Spread.of(runs.stream().map(Cpu.Cores::postgres).toList()),
					Spread.of(runs.stream().map(Cpu.Cores::others).toList()));
		}

		String text() {
			return fmt(this.service.median()) + "/" + fmt(this.generator.median()) + "/" + fmt(this.postgres.median())
					+ "/" + fmt(this.others.median());
		}

	}

	/**
	 * One side of a throughput point: which generator drove it (pgbench, wrk, jvm), its
	 * items/s, latencies as a worker sees them, answers that were not the expected ones.
	 */
	record Side(String generator, int clients, Spread itemsPerSecond, Latency claimMs, Latency renewMs,
			Latency completeMs, long errors, long emptyClaims, CpuCores cpuCores) {
	}

	/**
	 * A throughput point at W workers: the raw ceiling (pgbench, the service's own
	 * statements), the service driven by wrk (C) and by the JVM generator; {@code ratio} is
	 * wrk / raw (both sides C programs), {@code jvmRatio} JVM generator / raw;
	 * {@code machineProbeCpuSeconds} the {@link MachineProbe} before each repetition.
	 */
	record ThroughputPoint(String variant, int workers, Side raw, Side wrk, Side jvm, Side rawWithViews, double ratio,
			double jvmRatio, Spread loadAverage1m, double peakHeapUsedMib, double peakHeapCommittedMib,
			Spread machineProbeCpuSeconds) {
	}

	/** A point that may not exist on the service measured (an endpoint not built yet). */
	record Batch(boolean available, String unavailableBecause, int batchSize, int connections, Spread itemsPerSecond,
			Latency claimBatchMs, Latency completionsMs, long errors, CpuCores cpuCores) {
	}

	/**
	 * The closed loop of workers that take their next item with each completion
	 * ({@code claimNext}): one request per item; {@code claimMs} counts only the claims
	 * made after a completion found nothing next.
	 */
	record Chained(int connections, Spread itemsPerSecond, Latency claimMs, Latency completeMs, long errors,
			CpuCores cpuCores) {
	}

	/**
	 * graphile-worker in its default mode, same concurrency, same PostgreSQL, same run;
	 * {@code serviceBeside} is the service's wrk lifecycle at the same concurrency measured
	 * in turns with graphile-worker's repetitions (the peer ratio's numerator),
	 * {@code ratioPerTurn} each repetition's rate over the peer's in the same turn, and
	 * {@code chainedRatioPerTurn} the same for the chained point, whose repetitions run in
	 * the same turns.
	 */
	record Peer(boolean available, String unavailableBecause, String library, String mode, int concurrency,
			int maxPoolSize, Spread jobsPerSecond, double windowSeconds, int warmSeconds, long failedJobs,
			CpuCores cpuCores, Side serviceBeside, Spread ratioPerTurn, Spread chainedRatioPerTurn) {
	}

	/** Claims due at a fixed rate, latency from when each was due. */
	record OpenLoop(String generator, double offeredPerSecond, int workers, int seconds, Spread achievedPerSecond,
			Latency claimMs, Latency completeMs, long errors, long emptyClaims, long dueButUnsent, CpuCores cpuCores) {

		/** Its line in the table. */
		String text() {
			return String.format(java.util.Locale.ROOT,
					"open loop %.0f/s, %d workers (%s): achieved %s items/s, claim %s ms (from due), complete %s ms, "
							+ "unsent %d, errors %d, cpu %s",
					this.offeredPerSecond, this.workers, this.generator, this.achievedPerSecond.text(),
					this.claimMs.text(), this.completeMs.text(), this.dueButUnsent, this.errors, this.cpuCores.text());
		}

	}

	record Chain(int links, Spread seconds, Latency claimMs, Latency completeMs, long errors) {
	}

	/**
	 * Claim, checkpoint, complete at 32, in turns with the plain lifecycle: what writing
	 * one checkpoint per item costs ({@code ratioPerTurn}: checkpointed over plain).
	 */
	record Checkpointed(int connections, Spread itemsPerSecond, Spread lifecycleItemsPerSecond,
			Spread ratioPerTurn, Spread checkpointP99Ms, long errors) {
	}

	record FanIn(int dependents, Spread completeMs) {
	}

	/**
	 * One reaper repetition with what the server was doing meanwhile: a checkpoint
	 * running, WAL written, dead rows in the tables the reaper reads, and the CPU of the
	 * service, PostgreSQL and everyone else from the expiry to the end.
	 */
	record ReaperRun(double secondsFromExpiry, double firstRecordedAfterSeconds, boolean checkpointDuring,
			long walBytes, long deadLeaseRows, long deadWorkItemRows, long autovacuumsDuring, Cpu.Cores cpuCores) {
	}

	record Reaper(int leases, Spread secondsFromExpiry, String reaperInterval, List<ReaperRun> runs) {
	}

	record ScaleSize(long items, long readyAtStart, double fillSeconds, Spread claimP50MsPerRun,
			Spread completeP50MsPerRun, Latency claimMs, Latency completeMs, long errors, long checkpointsDuring,
			double blocksReadPerItem) {
	}

	record Scale(Map<String, ScaleSize> sizes, double ratio, double completeRatio, String ratioOf,
			Consistency consistency,
			ServiceInfo service) {
	}

	record Consistency(boolean consistent, String via, double seconds) {
	}

	record ServiceInfo(String database, int port, String jvm, String security, Consistency consistency,
			double cpuSecondsTotal, double peakRssMib) {
	}

	/**
	 * Where the run ran. Machines of one kind differ in their processors, which moves every figure:
	 * compare runs of one processor model. {@code memoryMonitor} is the kernel's DAMON, when it runs:
	 * sampling physical memory every half second to reclaim cold pages, it stalled the cores often
	 * enough here to add a fifth to two thirds to the open loop's claim p99 (docs/performance-journal.md).
	 */
	record Machine(int cpus, String cpuModel, String postgres, String autovacuum, String synchronousCommit,
			String loadBefore, String loadAfter, String memoryMonitor) {
	}

	/**
	 * The summary line's fields, in the order they joined it; NaN prints as "na". {@code added}
	 * are the fields of points added since ({@code name=value}, {@link Point#summary}).
	 */
	record Summary(double rawLifecycle32, double serviceLifecycle32, double ratio32, double claimP99Ms,
			double completeP99Ms, double scaleRatio, double reaper10kSeconds, double heapMib, long errors,
			double wrkLifecycle32, double peerGraphile32, double peerRatio32, double batchItemsPerSecond,
			double wrkChained32, double peerRatioChained32, double scaleCompleteRatio, double wrkBesidePeer32,
			List<String> added) {

		String line() {
			return "bench: raw_lifecycle_32=" + n0(this.rawLifecycle32) + " service_lifecycle_32="
					+ n0(this.serviceLifecycle32) + " ratio_32=" + n2(this.ratio32) + " claim_p99_ms="
					+ n2(this.claimP99Ms) + " complete_p99_ms=" + n2(this.completeP99Ms) + " scale_ratio="
					+ n2(this.scaleRatio) + " reaper_10k_seconds=" + n2(this.reaper10kSeconds) + " heap_mib="
					+ n0(this.heapMib) + " errors=" + this.errors + " wrk_lifecycle_32=" + n0(this.wrkLifecycle32)
					+ " peer_graphile_32=" + n0(this.peerGraphile32) + " peer_ratio_32=" + n2(this.peerRatio32)
					+ " batch_items_per_s=" + n0(this.batchItemsPerSecond) + " wrk_chained_32="
					+ n0(this.wrkChained32) + " peer_ratio_chained_32=" + n2(this.peerRatioChained32)
					+ " scale_complete_ratio=" + n2(this.scaleCompleteRatio) + " wrk_beside_peer_32="
					+ n0(this.wrkBesidePeer32) + String.join("", this.added.stream().map((f) -> " " + f).toList());
		}

		static String n0(double x) {
			return Double.isNaN(x) ? "na" : String.format(java.util.Locale.ROOT, "%.0f", x);
		}

		static String n2(double x) {
			return Double.isNaN(x) ? "na" : String.format(java.util.Locale.ROOT, "%.2f", x);
		}

	}

	static String fmt(double x) {
		if (Double.isNaN(x)) {
			return "-";
		}
		return (Math.abs(x) >= 100) ? String.format(java.util.Locale.ROOT, "%.0f", x)
				: String.format(java.util.Locale.ROOT, "%.2f", x);
	}

	static double round(double x, int digits) {
		if (Double.isNaN(x) || Double.isInfinite(x)) {
			return x;
		}
		double f = Math.pow(10, digits);
		return Math.round(x * f) / f;
	}

}
