/**
 * The model both sides share: an item's status and row, a lease's shape and outcome,
 * attention request states, and how their columns are read. Depends on no feature.
 */
package dev.workgraph.model;
