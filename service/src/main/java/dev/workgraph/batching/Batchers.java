package dev.workgraph.batching;

import java.util.List;
import java.util.function.BiFunction;

import org.springframework.stereotype.Component;

/**
 * Where the choice between requests alone and requests grouped is made, once, from the
 * settings: claims are coalesced when {@code workgraph.coalescing.enabled}
 * (docs/adr/0005), lease endings are committed together when
 * {@code workgraph.coalescing.group-commit} (docs/adr/0009). Grouped, each kind of
 * request gets its own {@link Coalescer}, sized, bounded and threaded as the settings
 * say.
 */
@Component
public class Batchers {

	private final CoalescingProperties coalescing;

	private final BatchThreads threads;

	Batchers(CoalescingProperties coalescing, BatchThreads threads) {
		this.coalescing = coalescing;
		this.threads = threads;
	}

	/** Whether lease endings that arrive together are committed together. */
	public boolean groupCommit() {
		return this.coalescing.groupCommit();
	}

	/** Claims: grouped when coalescing is on. */
	public <K, Q, P, R> Batcher<K, Q, R> claims(BiFunction<K, List<Q>, List<P>> inLane,
			BiFunction<K, List<P>, List<R>> afterLane) {
		return batcher(this.coalescing.enabled(), inLane, afterLane);
	}

	/** Lease endings (completions, releases, renewals): grouped under group commit. */
	public <K, Q, P, R> Batcher<K, Q, R> endings(BiFunction<K, List<Q>, List<P>> inLane,
			BiFunction<K, List<P>, List<R>> afterLane) {
		return batcher(this.coalescing.groupCommit(), inLane, afterLane);
	}

	private <K, Q, P, R> Batcher<K, Q, R> batcher(boolean grouped, BiFunction<K, List<Q>, List<P>> inLane,
			BiFunction<K, List<P>, List<R>> afterLane) {
		if (!grouped) {
			return Batcher.alone(inLane, afterLane);
		}
		return new Coalescer<>(inLane, afterLane, this.coalescing.maxBatch(), this.coalescing.maxInFlight(),
				this.coalescing.maxWait(), this.threads);
	}

}
