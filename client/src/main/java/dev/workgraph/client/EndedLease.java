package dev.workgraph.client;

/**
 * The answer to complete, release and cancel: the ended lease and the item as it is now.
 */
public record EndedLease(Lease lease, Item item) {
}
