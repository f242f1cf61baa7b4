/**
 * Retention (docs/operations.md, "Retention"): closed item trees older than
 * {@code workgraph.retention.closed-after} removed whole, with their history, in small
 * transactions that never hold up claims.
 */
package dev.workgraph.retention;
