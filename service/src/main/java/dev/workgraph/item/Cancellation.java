package dev.workgraph.item;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.access.Caller;

import org.springframework.stereotype.Component;

/**
 * Cancels an item and all its open descendants in the caller's transaction. Closing an
 * item closes a child of its parent, so each parent's {@code openChildren} drops by one;
 * dependents are left alone, since a cancelled dependency stays unmet (docs/http-api.md,
 * "Blockers").
 */
@Component
public class Cancellation {

	private final Items items;

	private final Readiness readiness;

	private final List<CancellationParticipant> participants;

	Cancellation(Items items, Readiness readiness, List<CancellationParticipant> participants) {
		this.items = items;
		this.readiness = readiness;
		this.participants = participants;
	}

	/**
	 * Returns the ids of the items cancelled. The caller has locked the root and checked
	 * it is open.
	 */
	public List<UUID> cancelSubtree(UUID rootId, String reason) {
		return cancelLocked(lockOpenSubtree(rootId), reason);
	}

	/** Cancels a subtree that {@link #lockOpenSubtree} has locked. */
	List<UUID> cancelLocked(List<UUID> subtree, String reason) {
		// The author is whoever makes the request: an operator's item cancel, a worker's
		// lease cancel; nobody for the system (no request, no caller).
		List<Items.ParentLink> cancelled = this.items.markCancelled(subtree, reason, Caller.currentName());
		List<UUID> cancelledIds = cancelled.stream().map(Items.ParentLink::itemId).toList();
		this.participants.forEach((participant) -> participant.itemsCancelled(cancelledIds, reason));
		List<BlockerDelta> closedChildren = new ArrayList<>();
		for (Items.ParentLink link : cancelled) {
			if (link.parentId() != null) {
				closedChildren.add(BlockerDelta.children(link.parentId(), -1));
			}
		}
		this.readiness.adjust(closedChildren);
		return cancelledIds;
	}

	/**
	 * Locks the open subtree until a fresh read finds nothing new, and returns it: a
	 * child attached (or an item completed) between reading the subtree and locking it
	 * shows up in the next read. Once every open node is locked, nobody can attach a
	 * child below them (that needs the parent's lock), so the set is final. An empty list
	 * means the root is terminal or does not exist.
	 *
	 * <p>
	 * Deepest items are locked first and the root last. A completion locks its item and
	 * then the parent, so top-down locking would deadlock with every completion in
	 * progress inside the subtree (each costing PostgreSQL's deadlock timeout, a second,
	 * and a retry); bottom-up, the cancel just waits for them.
	 */
	List<UUID> lockOpenSubtree(UUID rootId) {
		Set<UUID> locked = new HashSet<>();
		while (true) {
			List<UUID> subtree = this.items.openSubtree(rootId);
			List<UUID> unlocked = subtree.stream().filter((id) -> !locked.contains(id)).toList();
			if (unlocked.isEmpty()) {
				return subtree;
			}
			this.items.lockInOrder(unlocked);
			locked.addAll(unlocked);
		}
	}

}
