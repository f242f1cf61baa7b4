/**
 * The read side: the JSON shapes of items, leases and attention requests that every
 * endpoint returns, and the queries that assemble them. Features write; this package only
 * reads.
 */
package dev.workgraph.view;
