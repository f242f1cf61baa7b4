package dev.workgraph.view;

import java.time.Instant;

/**
 * A queue's backlog: its open items by status, and since when (and for how many seconds)
 * its oldest ready item has been waiting, null when none is ready.
 */
public record QueueView(String name, long ready, long leased, long blocked, Instant oldestReadySince,
		Double oldestReadyAgeSeconds) {
}
