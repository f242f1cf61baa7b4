package dev.workgraph.lease.ending;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.item.DependencyCycleDetected;
import dev.workgraph.item.ItemCreation;
import dev.workgraph.item.LockedItem;
import dev.workgraph.item.NewItem;
import dev.workgraph.item.NotBefore;
import dev.workgraph.item.Readiness;
import dev.workgraph.lease.Fencing;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.problem.FieldError;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.sql.Transactions;
import dev.workgraph.sql.Uuid7;
import dev.workgraph.validation.Json;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseView;

import org.springframework.stereotype.Service;

/**
 * Decompose (docs/http-api.md, "Decompose"): under a current lease, atomically create
 * 1–1,000 children, end the lease with outcome {@code decomposed} and leave the item
 * blocked until every child is terminal. Children may depend on each other by key and on
 * existing items by id.
 */
@Service
class Decomposition {

	private final Transactions transactions;

	private final Fencing fencing;

	private final ItemCreation creation;

	private final Readiness readiness;

	private final ItemViews views;

	Decomposition(Transactions transactions, Fencing fencing, ItemCreation creation, Readiness readiness,
			ItemViews views) {
		this.transactions = transactions;
		this.fencing = fencing;
		this.creation = creation;
		this.readiness = readiness;
		this.views = views;
	}

	Decomposed decompose(UUID leaseId, long epoch, List<ChildSpec> children, String reason) {
		Plan plan = plan(children);
		Result result = this.transactions.inTransaction(() -> {
			// What the children will wait for is locked before the item that will wait
			// for them.
			ItemCreation.LockedDependencies targets = this.creation.lockDependencies(plan.existingTargets(), true);
			// The guard before anything else: a stale lease is the answer that matters
			// most to the caller, even when a dependency does not exist.
			LockedItem item = this.fencing.lockItem(leaseId, epoch);
			this.creation.insert(targets, item, plan.newItems(children, item));
			LeaseView lease = this.fencing.end(leaseId, epoch, LeaseOutcome.DECOMPOSED, reason);
			this.readiness.settleAfterLeaseEnded(List.of(item.id()));
			return new Result(lease, item.id(), List.copyOf(plan.ids().values()));
		});
		return new Decomposed(result.lease(), this.views.find(result.itemId()).orElseThrow(),
				this.views.load(result.childIds()));
	}

	/**
	 * Checks what can be checked without the database: keys unique, every dependency a
	 * sibling key or an item id, no cycle among siblings. Assigns ids in request order
	 * (so siblings are claimed in the order given when nothing else distinguishes them).
	 */
	static Plan plan(List<ChildSpec> children) {
		Map<String, UUID> ids = new LinkedHashMap<>();
		List<FieldError> errors = new ArrayList<>();
		for (int i = 0; i < children.size(); i++) {
			String key = children.get(i).key();
			if (ids.containsKey(key)) {
				errors.add(new FieldError("children[" + i + "].key", "repeats the key '" + key + "'"));
			}
			else {
				ids.put(key, Uuid7.next());
			}
		}
		// In request order, so that a sibling cycle is named from the first child in it.
		Map<String, List<Target>> targets = new LinkedHashMap<>();
		Set<UUID> existing = new LinkedHashSet<>();
		for (int i = 0; i < children.size(); i++) {
			ChildSpec child = children.get(i);
			List<Target> resolved = new ArrayList<>();
			List<String> dependsOn = (child.dependsOn() != null) ? child.dependsOn() : List.of();
			for (int j = 0; j < dependsOn.size(); j++) {
				String reference = dependsOn.get(j);
				if (ids.containsKey(reference)) {
					resolved.add(new Target(reference, null));
					continue;
				}
				try {
					UUID itemId = UUID.fromString(reference);
					if (!itemId.toString().equalsIgnoreCase(reference)) {
						throw new IllegalArgumentException();
					}
					resolved.add(new Target(null, itemId));
					existing.add(itemId);
				}
				catch (IllegalArgumentException ex) {
					errors.add(new FieldError("children[" + i + "].dependsOn[" + j + "]",
							"is neither the key of a sibling nor an item id"));
				}
			}
			targets.putIfAbsent(child.key(), resolved.stream().distinct().toList());
		}
		if (!errors.isEmpty()) {
			throw new InvalidRequest(errors);
		}
		List<String> cycle = siblingCycle(targets);
		if (!cycle.isEmpty()) {
			throw new DependencyCycleDetected(cycle);
		}
		return new Plan(ids, targets, existing);
	}

	/**
	 * A cycle among sibling keys (first key repeated at the end), or empty. Depth-first,
	 * iterative.
	 */
	static List<String> siblingCycle(Map<String, List<Target>> targets) {
		Map<String, Integer> state = new HashMap<>(); // 1 = on the current path, 2 = done
		for (String start : targets.keySet()) {
			if (state.containsKey(start)) {
				continue;
			}
			Deque<String> path = new ArrayDeque<>();
			Deque<java.util.Iterator<Target>> pending = new ArrayDeque<>();
			path.push(start);
			pending.push(targets.get(start).iterator());
			state.put(start, 1);
			while (!path.isEmpty()) {
				java.util.Iterator<Target> next = pending.peek();
				if (!next.hasNext()) {
					state.put(path.pop(), 2);
					pending.pop();
					continue;
				}
				String sibling = next.next().siblingKey();
				if (sibling == null) {
					continue;
				}
				Integer seen = state.get(sibling);
				if (seen == null) {
					state.put(sibling, 1);
					path.push(sibling);
					pending.push(targets.get(sibling).iterator());
				}
				else if (seen == 1) {
					List<String> cycle = new ArrayList<>();
					cycle.add(sibling);
					for (String key : path) {
						cycle.add(key);
						if (key.equals(sibling)) {
							break;
						}
					}
					return cycle.reversed();
				}
			}
		}
		return List.of();
	}

	/** A child's dependency: a sibling (by key) or an existing item (by id). */
	record Target(String siblingKey, UUID itemId) {
	}

	record Plan(Map<String, UUID> ids, Map<String, List<Target>> targets, Set<UUID> existingTargets) {

		/**
		 * The children as new items of the parent: each depends on its siblings by id,
		 * and takes the parent's priority and queue unless it names its own.
		 */
		List<NewItem> newItems(List<ChildSpec> children, LockedItem parent) {
			List<NewItem> items = new ArrayList<>(children.size());
			for (int i = 0; i < children.size(); i++) {
				ChildSpec child = children.get(i);
				List<UUID> dependsOn = this.targets.get(child.key())
					.stream()
					.map((target) -> (target.siblingKey() != null) ? this.ids.get(target.siblingKey())
							: target.itemId())
					.toList();
				items.add(new NewItem(this.ids.get(child.key()), child.key(), child.title(), child.description(),
						parent.childPriority(child.priority()), parent.childQueue(child.queue()),
						Json.objectText(child.metadata()), dependsOn, child.retry(),
						NotBefore.parse("children[" + i + "].notBefore", child.notBefore())));
			}
			return items;
		}

	}

	private record Result(LeaseView lease, UUID itemId, List<UUID> childIds) {
	}

	/**
	 * The answer to decompose: the ended lease, the now-blocked item and its new
	 * children.
	 */
	record Decomposed(LeaseView lease, ItemView item, List<ItemView> children) {
	}

}
