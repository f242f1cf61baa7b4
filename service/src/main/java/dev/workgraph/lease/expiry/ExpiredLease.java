package dev.workgraph.lease.expiry;

import java.util.UUID;

/**
 * A lease the reaper has just recorded as expired, with the item's count of expiries in a
 * row and its attempts (both including this one) and its retry policy as stored (JSON
 * text, null for the defaults).
 */
public record ExpiredLease(UUID leaseId, UUID itemId, long epoch, int consecutiveExpirations, int attempts,
		String retry) {
}
