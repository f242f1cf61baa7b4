/**
 * Serving concurrent requests in batches: the {@code Coalescer} (leader/follower, natural
 * batching), the platform threads batches run on, what each request of a batch came to
 * ({@code PerRequest}), and the {@code workgraph.coalescing} settings. Knows no feature.
 */
package dev.workgraph.batching;
