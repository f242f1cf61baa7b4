package dev.workgraph.model;

import java.time.Instant;

/**
 * What keeps an item from being ready: three counters and a time. An item can be ready
 * only when all counters are zero and {@code notBefore} is null (unset, or its time has
 * come and the item was promoted).
 */
public record Blockers(int unmetDependencies, int openChildren, int openAttentionRequests, Instant notBefore) {
}
