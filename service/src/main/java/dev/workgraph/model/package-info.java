/**
 * The values both sides share, below both: an item's status and row, a lease's outcome,
 * attention request states, and how their columns are read and written on the wire.
 * Depends on no other package.
 */
package dev.workgraph.model;
