package dev.workgraph.client;

/**
 * A granted claim: the new lease and the full item (with its children's results and the
 * answers to earlier questions).
 */
public record Claim(Lease lease, Item item) {
}
