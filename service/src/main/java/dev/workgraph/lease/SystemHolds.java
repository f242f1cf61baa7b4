package dev.workgraph.lease;

import java.util.UUID;

/**
 * Holds an item for a human: opens a blocking attention request raised by the system, of
 * a {@code kind} that says why ({@code retries_exhausted}, {@code crash_loop},
 * {@code no_progress}), on an item the caller has locked. The caller counts it among the
 * item's blockers in the same transaction.
 */
public interface SystemHolds {

	void open(UUID itemId, UUID leaseId, long epoch, String kind, String question, String context);

}
