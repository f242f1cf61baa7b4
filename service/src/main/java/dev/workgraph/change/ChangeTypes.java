package dev.workgraph.change;

import java.util.List;

/**
 * The change types the outbox writes (migration V35; docs/changes.md), and the channel on
 * which the sequencer announces published changes.
 */
public final class ChangeTypes {

	/**
	 * Every type a stream or a webhook may ask for. The last three are written by
	 * features still to come (escalation of questions, waits for events and timers): each
	 * such feature adds a trigger on its own table that inserts its change into
	 * {@code change_pending} in the transaction that makes it, as V35 and V46 do, and
	 * nothing else; subscribers may ask for them already.
	 */
	public static final List<String> ALL = List.of("item.created", "item.ready", "item.blocked", "item.completed",
			"item.cancelled", "lease.granted", "lease.ended", "attention.opened", "attention.resolved",
			"checkpoint.written", "attention.escalated", "wait.matched", "wait.timed_out");

	/** Notified, payload the last seq, when the sequencer has published changes. */
	public static final String PUBLISHED_CHANNEL = "work_graph_changes";

	private ChangeTypes() {
	}

}
