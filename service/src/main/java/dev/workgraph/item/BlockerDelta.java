package dev.workgraph.item;

import java.util.UUID;

/** A change to one item's blocker counters, applied by {@link Readiness#adjust}. */
public record BlockerDelta(UUID itemId, int unmetDependencies, int openChildren, int openAttentionRequests,
		int openWaits) {

	public static BlockerDelta none(UUID itemId) {
		return new BlockerDelta(itemId, 0, 0, 0, 0);
	}

	public static BlockerDelta dependencies(UUID itemId, int change) {
		return new BlockerDelta(itemId, change, 0, 0, 0);
	}

	public static BlockerDelta children(UUID itemId, int change) {
		return new BlockerDelta(itemId, 0, change, 0, 0);
	}

	public static BlockerDelta attentionRequests(UUID itemId, int change) {
		return new BlockerDelta(itemId, 0, 0, change, 0);
	}

	public static BlockerDelta waits(UUID itemId, int change) {
		return new BlockerDelta(itemId, 0, 0, 0, change);
	}

}
