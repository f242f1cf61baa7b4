/**
 * Small building blocks shared by every feature: time-ordered ids, retried transactions,
 * and array parameters for SQL.
 */
package dev.workgraph.support;
