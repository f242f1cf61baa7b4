/**
 * SQL plumbing shared by every feature: retried READ COMMITTED transactions
 * ({@code Transactions}), one round trip for a statement and its settings, generic plans,
 * array parameters, time-ordered ids and the request's log context.
 */
package dev.workgraph.sql;
