package dev.workgraph.item;

import java.util.List;
import java.util.UUID;

/**
 * A feature that holds state about items and must close it when they are cancelled:
 * leases end with outcome {@code cancelled}, open attention requests are resolved by the
 * system. Called inside the cancelling transaction, after the items are locked and marked
 * cancelled.
 */
public interface CancellationParticipant {

	void itemsCancelled(List<UUID> itemIds, String reason);

}
