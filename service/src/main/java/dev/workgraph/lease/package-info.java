/**
 * Execution leases with fencing (ADR 0000,
 * docs/adr/0000-execution-leases-with-fencing.md): claiming, renewing and ending leases,
 * the expiry reaper and the append-only lease history.
 */
package dev.workgraph.lease;
