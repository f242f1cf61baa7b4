package dev.workgraph.item;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.access.Caller;
import dev.workgraph.model.ItemStatus;

import org.springframework.stereotype.Component;

/**
 * The one way items enter the graph, for {@code POST /items} and for decompose alike, in
 * the caller's transaction. Two steps, around the caller's own lock on the parent (a
 * plain lock for an operator, the fenced lock of the lease for decompose):
 * <ol>
 * <li>{@link #lockDependencies}: the graph lock when the new items could close a cycle,
 * then a share lock on each existing item they will wait for, so that its status holds
 * until commit;</li>
 * <li>{@link #insert}: refuses a cycle through the parent, inserts the items (each ready
 * or blocked by what it waits for) and their dependency edges, and counts them among the
 * parent's open children.</li>
 * </ol>
 * Locks follow the graph's order: the graph lock, what is waited for, then what waits.
 */
@Component
public class ItemCreation {

	private final Items items;

	private final Dependencies dependencies;

	private final WaitForGraph graph;

	private final Readiness readiness;

	ItemCreation(Items items, Dependencies dependencies, WaitForGraph graph, Readiness readiness) {
		this.items = items;
		this.dependencies = dependencies;
		this.graph = graph;
		this.readiness = readiness;
	}

	/**
	 * Step one. Nothing waits for a brand-new item and it waits for nothing yet, so only
	 * new items that get a parent (which will wait for them) and wait for existing items
	 * can close a cycle: only then is the graph lock taken, before any row lock.
	 * @param existing the existing items the new ones will depend on
	 * @param withParent whether the new items get a parent
	 */
	public LockedDependencies lockDependencies(Collection<UUID> existing, boolean withParent) {
		List<UUID> ids = List.copyOf(new LinkedHashSet<>(existing));
		boolean canCloseCycle = withParent && !ids.isEmpty();
		if (canCloseCycle) {
			this.graph.lockForChange();
		}
		return new LockedDependencies(ids, this.items.lockShared(ids), canCloseCycle);
	}

	/**
	 * Step two, with the parent (null for root items) locked by the caller and known to
	 * be open. Throws {@link ItemNotFound} for a dependency that does not exist and
	 * {@link DependencyCycleDetected} when an existing dependency already waits for the
	 * parent.
	 */
	public void insert(LockedDependencies locked, LockedItem parent, List<NewItem> newItems) {
		locked.requireAll();
		if (parent != null && locked.canCloseCycle()) {
			this.graph.pathToAny(locked.ids(), parent.id()).ifPresent((path) -> {
				List<Object> cycle = new ArrayList<>();
				cycle.add(parent.id());
				cycle.add(waitingFor(newItems, path.getFirst()));
				cycle.addAll(path);
				throw new DependencyCycleDetected(cycle);
			});
		}
		Set<UUID> newIds = new LinkedHashSet<>();
		newItems.forEach((item) -> newIds.add(item.id()));
		int[] unmet = new int[newItems.size()];
		List<Dependencies.Edge> edges = new ArrayList<>();
		for (int i = 0; i < newItems.size(); i++) {
			NewItem item = newItems.get(i);
			for (UUID target : new LinkedHashSet<>(item.dependsOn())) {
				edges.add(new Dependencies.Edge(item.id(), target));
				if (newIds.contains(target) || !locked.isCompleted(target)) {
					unmet[i]++;
				}
			}
		}
		// The author is whoever makes the request: an operator's POST /items, a worker's
		// decompose.
		this.items.insert((parent != null) ? parent.id() : null, newItems, unmet, Caller.currentName());
		this.dependencies.insert(edges);
		if (parent != null) {
			this.readiness.adjust(BlockerDelta.children(parent.id(), newItems.size()));
		}
	}

	/** The first new item that depends on the existing one, as the request names it. */
	private static String waitingFor(List<NewItem> newItems, UUID existing) {
		return newItems.stream()
			.filter((item) -> item.dependsOn().contains(existing))
			.map(NewItem::reference)
			.findFirst()
			.orElseThrow();
	}

	/**
	 * The existing items that new ones will depend on, share-locked by this transaction;
	 * {@code canCloseCycle} when the graph lock was taken too.
	 */
	public static final class LockedDependencies {

		private final List<UUID> ids;

		private final Map<UUID, LockedItem> found;

		private final boolean canCloseCycle;

		private LockedDependencies(List<UUID> ids, Map<UUID, LockedItem> found, boolean canCloseCycle) {
			this.ids = ids;
			this.found = found;
			this.canCloseCycle = canCloseCycle;
		}

		/** Throws {@link ItemNotFound} for the first of them that does not exist. */
		public void requireAll() {
			for (UUID id : this.ids) {
				if (!this.found.containsKey(id)) {
					throw new ItemNotFound(id);
				}
			}
		}

		List<UUID> ids() {
			return this.ids;
		}

		boolean canCloseCycle() {
			return this.canCloseCycle;
		}

		boolean isCompleted(UUID id) {
			LockedItem item = this.found.get(id);
			return item != null && item.status() == ItemStatus.COMPLETED;
		}

	}

}
