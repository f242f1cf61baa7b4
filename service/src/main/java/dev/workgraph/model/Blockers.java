package dev.workgraph.model;

/**
 * The counters of the readiness predicate; an item can be ready only when all are zero.
 * {@code openWaits} counts the item's durable waits not yet matched or timed out.
 */
public record Blockers(int unmetDependencies, int openChildren, int openAttentionRequests, int openWaits) {
}
