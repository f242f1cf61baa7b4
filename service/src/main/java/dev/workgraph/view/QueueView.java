package dev.workgraph.view;

import java.time.Instant;

/**
 * A queue's backlog: its open items by status, and since when (and for how many seconds)
 * its oldest ready item has been waiting, null when none is ready; whether it is paused
 * (grants no claims) and the most leases it may have active at once, null for no cap.
 */
public record QueueView(String name, long ready, long leased, long blocked, Instant oldestReadySince,
		Double oldestReadyAgeSeconds, boolean paused, Integer maxActiveLeases) {
}
