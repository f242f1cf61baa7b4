package dev.workgraph.chaos;

import java.util.List;
import java.util.Random;

/**
 * What every simulated actor of a run has: its own random sequence (from its seed, so a
 * run repeats), the client it sends through, the shared world and tally, and its pacing.
 */
abstract class Actor implements Runnable {

	final Random random;

	final Client client;

	final World world;

	final Tally tally;

	final Pacing pacing;

	/**
	 * @param leaseSeconds the lease lengths it asks for, empty if it holds no leases
	 * @param firstInstance the instance it sends to first
	 */
	Actor(long seed, Client client, World world, Tally tally, List<Integer> leaseSeconds, int firstInstance) {
		this.random = new Random(seed);
		this.client = client;
		this.world = world;
		this.tally = tally;
		this.pacing = new Pacing(this.random, leaseSeconds, firstInstance);
	}

}
