package dev.workgraph.client;

/**
 * The answer to a handoff: the lease that ended ({@code handed_off}), the successor's
 * lease (the next epoch) and the item, leased to the successor.
 */
public record HandedOff(Lease ended, Lease lease, Item item) {
}
