/**
 * Expiry: the reaper that records expired leases ({@code LeaseReaper},
 * {@code ExpiredLeases}), its listeners, and the claim queue's maintenance. Depends on
 * the lease root only.
 */
package dev.workgraph.lease.expiry;
