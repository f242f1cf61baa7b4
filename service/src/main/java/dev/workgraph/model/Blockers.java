package dev.workgraph.model;

import java.time.Instant;

/**
 * What keeps an item from being ready: four counters and a time. An item can be ready
 * only when all counters are zero and {@code notBefore} is null (unset, or its time has
 * come and the item was promoted). {@code openWaits} counts the item's durable waits not
 * yet matched or timed out.
 */
public record Blockers(int unmetDependencies, int openChildren, int openAttentionRequests, Instant notBefore,
		int openWaits) {
}
