package dev.workgraph.change;

import java.util.List;

/**
 * The change types the outbox writes (migration V35; docs/changes.md), and the channel on
 * which the sequencer announces published changes.
 */
public final class ChangeTypes {

	public static final List<String> ALL = List.of("item.created", "item.ready", "item.blocked", "item.completed",
			"item.cancelled", "lease.granted", "lease.ended", "attention.opened", "attention.resolved");

	/** Notified, payload the last seq, when the sequencer has published changes. */
	public static final String PUBLISHED_CHANNEL = "work_graph_changes";

	private ChangeTypes() {
	}

}
