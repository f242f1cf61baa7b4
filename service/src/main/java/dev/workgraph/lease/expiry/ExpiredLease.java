package dev.workgraph.lease.expiry;

import java.util.UUID;

/**
 * A lease the reaper has just recorded as expired, with the item's count of expiries in a
 * row (including this one).
 */
public record ExpiredLease(UUID leaseId, UUID itemId, long epoch, int consecutiveExpirations) {
}
