/**
 * Execution leases with fencing (ADR 002): claiming, renewing and ending leases, the
 * expiry reaper and the append-only lease history.
 */
package dev.workgraph.lease;
