/**
 * The read side only: the JSON shapes of items and attention requests that endpoints
 * return, the queries that assemble them, and lease reads. It depends on no feature that
 * writes; what it shares with them is in {@code model}.
 */
package dev.workgraph.view;
