/**
 * Work items and the wait-for graph: creating items, dependencies, parents and children,
 * readiness, waiting for readiness (long-poll claims), and operator cancellation. Other
 * features use {@code ItemCreation}, {@code Readiness}, {@code ReadyWaiters} and
 * {@code Cancellation}; the repositories stay inside.
 */
package dev.workgraph.item;
