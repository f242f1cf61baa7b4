package dev.workgraph.chaos;

import java.util.List;
import java.util.Random;

/**
 * How a simulated actor paces itself, on its own random sequence: random pauses, backing
 * off to the other instance when the service was unavailable, and (for a worker) the
 * lease lengths it asks for.
 */
final class Pacing {

	private final Random random;

	private final List<Integer> leaseSeconds;

	private int instance;

	/**
	 * @param leaseSeconds the lease lengths to choose from, empty for an actor that holds
	 * no leases
	 * @param firstInstance the instance it sends to first (counted modulo the instances)
	 */
	Pacing(Random random, List<Integer> leaseSeconds, int firstInstance) {
		this.random = random;
		this.leaseSeconds = leaseSeconds;
		this.instance = firstInstance;
	}

	/** The instance it sends to now. */
	int instance() {
		return this.instance;
	}

	/** The instance to send to now; what it sends next goes to the other one. */
	int takeInstance() {
		return this.instance++;
	}

	/** Turns to the other instance. */
	void switchInstance() {
		this.instance++;
	}

	int leaseSeconds() {
		return this.leaseSeconds.get(this.random.nextInt(this.leaseSeconds.size()));
	}

	/** The service was unavailable: wait a little and try the other instance. */
	void backOff() {
		switchInstance();
		pause(100, 500);
	}

	void pause(int minMillis, int maxMillis) {
		pauseMillis(minMillis + this.random.nextInt(maxMillis - minMillis + 1));
	}

	/**
	 * Sleeps; interrupted, it returns early and carries on with the flag set (unlike
	 * {@link ServiceInstance#sleep}, which throws).
	 */
	static void pauseMillis(long millis) {
		if (millis > 0) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
