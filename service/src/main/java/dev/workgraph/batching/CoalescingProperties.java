package dev.workgraph.batching;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param enabled whether concurrent claims with the same queues filter are served by one
 * batch (docs/adr/0005); off, every claim runs its own statement
 * @param maxBatch the most claims one batch serves
 * @param maxInFlight how many batches of one queues filter (or of one kind of lease
 * ending) may run at once; requests queue for a batch only while that many are in flight.
 * One by default: the fewer batches, the bigger each and the less CPU per item
 * @param maxWait how long a claim waits for its batch before it answers 503 (twice this
 * once its batch is running)
 * @param groupCommit whether concurrent completions (and renewals) are committed
 * together, each fenced on its own (docs/adr/0009); off, each runs its own transaction.
 * Uses the same batch size, slots and wait as the claims.
 * @param batchThreads the platform threads that run batches' transactions, for every lane
 * together; a batch that finds them all busy waits for one, as it would for a database
 * connection, so it is no use to set it below the connection pool's size
 */
@ConfigurationProperties("workgraph.coalescing")
public record CoalescingProperties(@DefaultValue("true") boolean enabled, @DefaultValue("32") int maxBatch,
		@DefaultValue("1") int maxInFlight, @DefaultValue("30s") Duration maxWait,
		@DefaultValue("true") boolean groupCommit, @DefaultValue("16") int batchThreads) {

	public CoalescingProperties {
		if (maxBatch < 1 || maxBatch > 1000) {
			throw new IllegalArgumentException("workgraph.coalescing.max-batch must be between 1 and 1000");
		}
		if (maxInFlight < 1 || maxInFlight > 100) {
			throw new IllegalArgumentException("workgraph.coalescing.max-in-flight must be between 1 and 100");
		}
		if (batchThreads < 1 || batchThreads > 1000) {
			throw new IllegalArgumentException("workgraph.coalescing.batch-threads must be between 1 and 1000");
		}
		if (!maxWait.isPositive()) {
			throw new IllegalArgumentException("workgraph.coalescing.max-wait must be positive");
		}
	}

}
