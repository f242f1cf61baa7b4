package dev.workgraph.lease;

import dev.workgraph.view.ItemView;
import dev.workgraph.view.LeaseView;

/**
 * A lease with the item it is (or was) for, as the claim and lease-ending endpoints
 * answer.
 */
public record LeaseAndItem(LeaseView lease, ItemView item) {
}
