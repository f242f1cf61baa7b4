package dev.workgraph.client.worker;

import dev.workgraph.client.Claim;

/**
 * A claim, and when the request that made it (a claim, or a completion with
 * {@code claimNext}) was sent and answered, in monotonic nanoseconds: the lease began
 * after the send.
 */
record TimedClaim(Claim claim, long sentAt, long receivedAt) {
}
