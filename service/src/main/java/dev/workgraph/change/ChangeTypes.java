package dev.workgraph.change;

import java.util.List;

/** The change types the outbox writes (migration V35; docs/changes.md). */
final class ChangeTypes {

	static final List<String> ALL = List.of("item.created", "item.ready", "item.blocked", "item.completed",
			"item.cancelled", "lease.granted", "lease.ended", "attention.opened", "attention.resolved");

	private ChangeTypes() {
	}

}
