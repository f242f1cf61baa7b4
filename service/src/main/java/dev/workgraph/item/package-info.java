/**
 * Work items and the wait-for graph: creating items, dependencies, parents and children,
 * readiness, and operator cancellation. Other features use {@code ItemCreation},
 * {@code Readiness} and {@code Cancellation}; the repositories stay inside.
 */
package dev.workgraph.item;
