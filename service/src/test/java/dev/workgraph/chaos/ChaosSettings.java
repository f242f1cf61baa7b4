package dev.workgraph.chaos;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a chaos run is shaped. Every random choice of the run derives from {@code seed}, so
 * a failing seed reruns the same schedule (as closely as thread timing allows) with
 * {@code -Dchaos.seed=N}.
 *
 * @param seed the master seed
 * @param load how long the random workload and the faults run before the drain
 * @param workers simulated workers (virtual threads), of which {@code wrongClockWorkers}
 * schedule renewals by a skewed wall clock
 * @param wrongClockWorkers how many workers have a wrong clock
 * @param leaseSeconds lease lengths workers ask for (short, so stalls and crashes expire)
 * @param maxOpenItems the planner stops creating while this many items are open
 * @param requestTimeout an answer slower than this is a hang (a violation)
 * @param drainTimeout the drain must end with every item terminal within this
 * @param minimumClaims the load goes on (up to three times as long) until this many
 * claims succeeded
 */
record ChaosSettings(long seed, Duration load, int workers, int wrongClockWorkers, List<Integer> leaseSeconds,
		int maxOpenItems, Duration requestTimeout, Duration drainTimeout, int minimumClaims) {

	/**
	 * Workers on the worker stream ({@link StreamWorker}), besides the HTTP ones: a
	 * quarter as many.
	 */
	int streamWorkers() {
		return Math.max(1, this.workers / 4);
	}

	/** The seed: {@code -Dchaos.seed}, else a fresh random one (printed by the run). */
	static long configuredSeed() {
		String configured = System.getProperty("chaos.seed");
		return (configured != null && !configured.isBlank()) ? Long.parseLong(configured.strip())
				: ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
	}

	/** A short run for the normal build. */
	static ChaosSettings quick(Duration load) {
		return new ChaosSettings(configuredSeed(), load, 12, 3, List.of(2, 3, 4, 6), 80, Duration.ofSeconds(30),
				Duration.ofSeconds(120), 60);
	}

	/** The soak: {@code -Dchaos.duration} of load (e.g. 600s, 10m). */
	static ChaosSettings soak() {
		Duration load = parse(System.getProperty("chaos.duration", "60s"));
		int workers = Integer.getInteger("chaos.workers", 16);
		return new ChaosSettings(configuredSeed(), load, workers, Math.max(1, workers / 5), List.of(2, 3, 4, 6, 10),
				150, Duration.ofSeconds(30), Duration.ofSeconds(240), 0);
	}

	/** {@code 90}, {@code 90s}, {@code 10m}, {@code 1h} or an ISO-8601 duration. */
	static Duration parse(String text) {
		String value = text.strip().toLowerCase(java.util.Locale.ROOT);
		if (value.startsWith("p")) {
			return Duration.parse(value.toUpperCase(java.util.Locale.ROOT));
		}
		char unit = value.charAt(value.length() - 1);
		if (Character.isDigit(unit)) {
			return Duration.ofSeconds(Long.parseLong(value));
		}
		long amount = Long.parseLong(value.substring(0, value.length() - 1));
		return switch (unit) {
			case 's' -> Duration.ofSeconds(amount);
			case 'm' -> Duration.ofMinutes(amount);
			case 'h' -> Duration.ofHours(amount);
			default -> throw new IllegalArgumentException("Unknown duration: " + text);
		};
	}

}
