package dev.workgraph.model;

/**
 * The three counters of the readiness predicate; an item can be ready only when all are
 * zero.
 */
public record Blockers(int unmetDependencies, int openChildren, int openAttentionRequests) {
}
