package dev.workgraph.item;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.input.Json;
import dev.workgraph.support.Transactions;
import dev.workgraph.support.Uuid7;
import dev.workgraph.model.ItemStatus;

import org.springframework.stereotype.Service;

/**
 * Operator and planner changes to the graph: create items, add and remove dependencies,
 * cancel. Each runs in one transaction and keeps readiness exact through
 * {@link Readiness}.
 */
@Service
public class ItemCommands {

	private final Transactions transactions;

	private final Items items;

	private final Dependencies dependencies;

	private final Readiness readiness;

	private final WaitForGraph graph;

	private final IdempotencyKeys idempotencyKeys;

	private final Cancellation cancellation;

	ItemCommands(Transactions transactions, Items items, Dependencies dependencies, Readiness readiness,
			WaitForGraph graph, IdempotencyKeys idempotencyKeys, Cancellation cancellation) {
		this.transactions = transactions;
		this.items = items;
		this.dependencies = dependencies;
		this.readiness = readiness;
		this.graph = graph;
		this.idempotencyKeys = idempotencyKeys;
		this.cancellation = cancellation;
	}

	/**
	 * Creates the item, or with an Idempotency-Key already used for an equal request,
	 * returns the item that request created. {@code requestJson} is the request body as
	 * compact JSON.
	 */
	Created create(CreateItemRequest request, String idempotencyKey, String requestJson) {
		if (idempotencyKey == null) {
			return new Created(this.transactions.inTransaction(() -> insert(request)), false);
		}
		try {
			return this.transactions.inTransaction(() -> {
				UUID replayed = replayOf(idempotencyKey, requestJson);
				if (replayed != null) {
					return new Created(replayed, true);
				}
				UUID id = insert(request);
				if (!this.idempotencyKeys.insert(idempotencyKey, requestJson, id)) {
					throw new KeyTakenConcurrently();
				}
				return new Created(id, false);
			});
		}
		catch (KeyTakenConcurrently ex) {
			// Another request with this key committed while we ran; ours rolled back.
			// Answer as a replay.
			return new Created(this.transactions.inTransaction(() -> replayOf(idempotencyKey, requestJson)), true);
		}
	}

	private UUID replayOf(String key, String requestJson) {
		return this.idempotencyKeys.find(key, requestJson).map((remembered) -> {
			if (!remembered.sameRequest()) {
				throw new IdempotencyConflict(key, remembered.itemId());
			}
			return remembered.itemId();
		}).orElse(null);
	}

	private UUID insert(CreateItemRequest request) {
		UUID parentId = request.parentId();
		List<UUID> dependsOn = distinct(request.dependsOn());
		UUID id = Uuid7.next();
		// Nothing waits for a brand-new item and it waits for nothing yet, so only an
		// item that gets a
		// parent (which will wait for it) and dependencies (which it will wait for) can
		// close a cycle.
		boolean canCloseCycle = parentId != null && !dependsOn.isEmpty();
		if (canCloseCycle) {
			if (dependsOn.contains(parentId)) {
				throw new DependencyCycleDetected(List.of(parentId, "(new item)", parentId));
			}
			this.graph.lockForChange();
		}
		// Lock what is waited for before what waits: dependencies first, then the parent.
		int unmet = unmetAmong(dependsOn);
		if (parentId != null) {
			this.items.lockExisting(parentId).requireOpen();
		}
		if (canCloseCycle) {
			this.graph.pathToAny(dependsOn, parentId).ifPresent((path) -> {
				List<Object> cycle = new ArrayList<>();
				cycle.add(parentId);
				cycle.add("(new item)");
				cycle.addAll(path);
				throw new DependencyCycleDetected(cycle);
			});
		}
		this.items.insert(List.of(new NewItem(id, request.title(), request.description(),
				Objects.requireNonNullElse(request.priority(), 0),
				Objects.requireNonNullElse(request.queue(), QueueNames.DEFAULT), Json.objectText(request.metadata()),
				parentId, unmet)));
		this.dependencies.insert(dependsOn.stream().map((target) -> new Dependencies.Edge(id, target)).toList());
		if (parentId != null) {
			this.readiness.adjust(BlockerDelta.children(parentId, +1));
		}
		return id;
	}

	/** Share-locks the dependencies (all must exist) and counts those not completed. */
	private int unmetAmong(List<UUID> dependsOn) {
		Map<UUID, LockedItem> targets = this.items.lockShared(dependsOn);
		int unmet = 0;
		for (UUID target : dependsOn) {
			LockedItem dependency = targets.get(target);
			if (dependency == null) {
				throw new ItemNotFound(target);
			}
			if (dependency.status() != ItemStatus.COMPLETED) {
				unmet++;
			}
		}
		return unmet;
	}

	/** Adds the edge; false when it already existed (nothing changed). */
	boolean addDependency(UUID itemId, UUID dependsOnId) {
		return this.transactions.inTransaction(() -> {
			this.graph.lockForChange();
			Map<UUID, LockedItem> locked = this.items.lock(List.of(itemId, dependsOnId));
			LockedItem item = locked.get(itemId);
			if (item == null) {
				throw new ItemNotFound(itemId);
			}
			item.requireOpen();
			LockedItem target = locked.get(dependsOnId);
			if (target == null) {
				throw new ItemNotFound(dependsOnId);
			}
			if (itemId.equals(dependsOnId)) {
				throw new DependencyCycleDetected(List.of(itemId, itemId));
			}
			this.graph.pathToAny(List.of(dependsOnId), itemId).ifPresent((path) -> {
				List<Object> cycle = new ArrayList<>();
				cycle.add(itemId);
				cycle.addAll(path);
				throw new DependencyCycleDetected(cycle);
			});
			if (this.dependencies.insert(List.of(new Dependencies.Edge(itemId, dependsOnId))) == 0) {
				return false;
			}
			if (target.status() != ItemStatus.COMPLETED) {
				this.readiness.adjust(BlockerDelta.dependencies(itemId, +1));
			}
			return true;
		});
	}

	void removeDependency(UUID itemId, UUID dependsOnId) {
		this.transactions.inTransaction(() -> {
			Map<UUID, LockedItem> locked = this.items.lock(List.of(itemId, dependsOnId));
			LockedItem item = locked.get(itemId);
			if (item == null) {
				throw new ItemNotFound(itemId);
			}
			item.requireOpen();
			LockedItem target = locked.get(dependsOnId);
			if (target == null || !this.dependencies.delete(itemId, dependsOnId)) {
				throw new DependencyNotFound(itemId, dependsOnId);
			}
			if (target.status() != ItemStatus.COMPLETED) {
				this.readiness.adjust(BlockerDelta.dependencies(itemId, -1));
			}
		});
	}

	/**
	 * Operator cancel: the item and its open descendants; their active leases end as
	 * cancelled.
	 */
	void cancel(UUID itemId, String reason) {
		this.transactions.inTransaction(() -> {
			// The root is locked last, after its descendants (see lockOpenSubtree).
			List<UUID> subtree = this.cancellation.lockOpenSubtree(itemId);
			this.items.lockExisting(itemId).requireOpen();
			this.cancellation.cancelLocked(subtree, reason);
		});
	}

	static List<UUID> distinct(List<UUID> ids) {
		if (ids == null) {
			return List.of();
		}
		Set<UUID> unique = new LinkedHashSet<>(ids);
		return List.copyOf(unique);
	}

	/**
	 * The item a create request resulted in; {@code replayed} when an Idempotency-Key
	 * matched.
	 */
	record Created(UUID itemId, boolean replayed) {
	}

	/**
	 * Internal signal: the Idempotency-Key was inserted by a concurrent request that
	 * committed first.
	 */
	private static final class KeyTakenConcurrently extends RuntimeException {

		KeyTakenConcurrently() {
			super(null, null, false, false);
		}

	}

}
