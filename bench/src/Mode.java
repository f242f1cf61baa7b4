import java.util.Set;

/**
 * How much of everything a run does, and which points it runs ({@code only}: all of them
 * when empty). The service is warmed up before its points when {@code warmSeconds} is not
 * zero.
 */
record Mode(String name, int pointSeconds, int warmSeconds, int pointWarmSeconds, int repsAt32, int repsElsewhere,
		boolean renewAllW, int openSeconds, int openReps, long[] sizes, int scaleClaims, int scaleReps, int graphReps,
		int reaperReps, int peerWarmSeconds, int peerSeconds, int peerReps, Set<Class<? extends Point>> only) {

	static final Mode QUICK = new Mode("quick", 4, 60, 2, 3, 1, false, 10, 1,
			new long[] { 1_000, 100_000, 1_000_000 }, 60, 6, 1, 2, 5, 5, 3, Set.of());

	static final Mode FULL = new Mode("full", 10, 90, 5, 3, 3, true, 30, 3, new long[] { 1_000, 100_000, 10_000_000 },
			150, 6, 3, 5, 10, 10, 3, Set.of());

	/** The reaper point alone, repeated: for finding out why it varies. */
	static Mode reaperOnly(int reps) {
		return new Mode("reaper", 0, 0, 0, 0, 0, false, 0, 0, new long[0], 0, 0, 0, reps, 0, 0, 0,
				Set.of(ReaperPoint.class));
	}

	/** The service's warm-up, then the open loop alone, repeated: for its latencies. */
	static Mode openLoopOnly(int reps) {
		return new Mode("open", QUICK.pointSeconds(), QUICK.warmSeconds(), QUICK.pointWarmSeconds(), 0, 0, false,
				QUICK.openSeconds(), reps, new long[0], 0, 0, 0, 0, 0, 0, 0,
				Set.of(OpenLoopPoint.class, OpenLoopJvmPoint.class));
	}

	/**
	 * The scale points alone, each size measured {@code reps} times: for their latencies,
	 * and with the full run's sizes for the audit of its largest table.
	 */
	static Mode scaleOnly(int reps, boolean fullSizes) {
		return new Mode("scale", 0, 0, 0, 0, 0, false, 0, 0, (fullSizes ? FULL : QUICK).sizes(), QUICK.scaleClaims(),
				reps, 0, 0, 0, 0, 0, Set.of(ScalePoint.class));
	}

	/**
	 * The service's warm-up, then the stream point alone, {@code reps} turns with
	 * graphile-worker: for the whole system as users run it.
	 */
	static Mode streamOnly(int reps) {
		return new Mode("stream", QUICK.pointSeconds(), QUICK.warmSeconds(), QUICK.pointWarmSeconds(), 0, 0, false, 0, 0,
				new long[0], 0, 0, 0, 0, QUICK.peerWarmSeconds(), QUICK.peerSeconds(), reps, Set.of(StreamPoint.class));
	}

	/**
	 * The stream latency point alone, on a service that is not warmed up first (the point
	 * warms up the path it measures): short, for ready-to-lease latency at 32 idle workers.
	 */
	static Mode streamLatencyOnly() {
		return new Mode("stream-latency", 0, 0, 0, 0, 0, false, 0, 0, new long[0], 0, 0, 0, 0, 0, 0, 0,
				Set.of(StreamLatencyPoint.class));
	}

	int reps(int workers) {
		return (workers == 32) ? this.repsAt32 : this.repsElsewhere;
	}

	boolean runs(Point point) {
		return this.only.isEmpty() || this.only.contains(point.getClass());
	}

}
