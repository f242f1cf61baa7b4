package dev.workgraph.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bounds the values of the {@code queue} tag. Queue names are chosen by users, and every
 * distinct value is a series of its own in Prometheus; the first {@code limit} queues
 * seen (since the start) get their own tag value, every later one is counted under
 * {@link #OTHER}. Neither {@link #OTHER} nor {@link #ANY} can be a queue name (queue
 * names are lower-case letters, digits, dots, underscores and hyphens).
 */
public final class QueueTags {

	/** The tag of every queue beyond the limit. */
	public static final String OTHER = "(other)";

	/** The tag of an empty claim that named no queue, or several. */
	public static final String ANY = "(any)";

	private final Set<String> admitted = ConcurrentHashMap.newKeySet();

	private final int limit;

	public QueueTags(int limit) {
		this.limit = limit;
	}

	/** The tag value for the queue: its name when admitted, else {@link #OTHER}. */
	public String of(String queue) {
		if (this.admitted.contains(queue)) {
			return queue;
		}
		synchronized (this.admitted) {
			if (this.admitted.size() < this.limit) {
				this.admitted.add(queue);
				return queue;
			}
		}
		return this.admitted.contains(queue) ? queue : OTHER;
	}

}
