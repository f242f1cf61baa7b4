package dev.workgraph.lease.expiry;

import java.util.List;

import dev.workgraph.item.BlockerDelta;

/**
 * Told about expiries inside the reaper's transaction, after they are recorded and before
 * the items settle; the blocker changes it returns are applied in the same settlement
 * (the crash-loop guard holds an item by opening a blocking attention request).
 */
public interface ExpiryListener {

	List<BlockerDelta> leasesExpired(List<ExpiredLease> expired);

}
