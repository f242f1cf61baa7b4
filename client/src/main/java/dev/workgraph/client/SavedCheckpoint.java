package dev.workgraph.client;

/**
 * The answer to a checkpoint: the checkpoint, and the lease (renewed when the request
 * asked for it).
 */
public record SavedCheckpoint(Checkpoint checkpoint, Lease lease) {
}
