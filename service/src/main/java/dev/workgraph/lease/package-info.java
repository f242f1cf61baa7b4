/**
 * Execution leases with fencing (ADR 0000,
 * docs/adr/0000-execution-leases-with-fencing.md). The root holds what every lease
 * mutation shares: the guard ({@code Fencing}), the append-only history
 * ({@code LeaseHistory}), who holds which lease ({@code LeaseHolders}), the lease
 * settings and counters. Claiming is in {@code claim}, ending (with group commit and
 * decomposition) in {@code ending}, expiry in {@code expiry}.
 */
package dev.workgraph.lease;
