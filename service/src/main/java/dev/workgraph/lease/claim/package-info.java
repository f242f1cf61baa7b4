/**
 * Claiming: {@code POST /claims} and {@code POST /claims/batch}, the claim statements
 * ({@code Claims}) and coalesced claims (ADR 0005). Depends on the lease root, not on
 * ending or expiry.
 */
package dev.workgraph.lease.claim;
