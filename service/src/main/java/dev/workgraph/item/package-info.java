/**
 * Work items and the wait-for graph: creating items, dependencies, parents and children,
 * readiness, and operator cancellation.
 */
package dev.workgraph.item;
