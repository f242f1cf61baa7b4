/**
 * The read side: the JSON shapes that endpoints answer with (items, leases, attention
 * requests, queues, pages) and the queries that assemble them. It depends on no feature
 * that writes; the values it shares with them are in {@code model}.
 */
package dev.workgraph.view;
