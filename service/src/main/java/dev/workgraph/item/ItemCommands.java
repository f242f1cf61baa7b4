package dev.workgraph.item;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.model.ItemStatus;
import dev.workgraph.sql.Transactions;
import dev.workgraph.sql.Uuid7;
import dev.workgraph.validation.Json;

import org.springframework.stereotype.Service;

/**
 * Operator and planner changes to the graph: create items, add and remove dependencies,
 * cancel. Each runs in one transaction and keeps readiness exact through
 * {@link Readiness}.
 */
@Service
class ItemCommands {

	/** How a problem names the item a create request would have made. */
	private static final String NEW_ITEM = "(new item)";

	private final Transactions transactions;

	private final Items items;

	private final Dependencies dependencies;

	private final Readiness readiness;

	private final WaitForGraph graph;

	private final IdempotencyKeys idempotencyKeys;

	private final Cancellation cancellation;

	private final ItemCreation creation;

	ItemCommands(Transactions transactions, Items items, Dependencies dependencies, Readiness readiness,
			WaitForGraph graph, IdempotencyKeys idempotencyKeys, Cancellation cancellation, ItemCreation creation) {
		this.transactions = transactions;
		this.items = items;
		this.dependencies = dependencies;
		this.readiness = readiness;
		this.graph = graph;
		this.idempotencyKeys = idempotencyKeys;
		this.cancellation = cancellation;
		this.creation = creation;
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
		if (parentId != null && dependsOn.contains(parentId)) {
			throw new DependencyCycleDetected(List.of(parentId, NEW_ITEM, parentId));
		}
		ItemCreation.LockedDependencies locked = this.creation.lockDependencies(dependsOn, parentId != null);
		locked.requireAll();
		// What is waited for is locked before what waits: the dependencies, then the
		// parent.
		LockedItem parent = (parentId != null) ? this.items.lockExisting(parentId).requireOpen() : null;
		UUID id = Uuid7.next();
		this.creation.insert(locked, parent,
				List.of(new NewItem(id, NEW_ITEM, request.title(), request.description(),
						(parent != null) ? parent.childPriority(request.priority())
								: Objects.requireNonNullElse(request.priority(), 0),
						(parent != null) ? parent.childQueue(request.queue())
								: Objects.requireNonNullElse(request.queue(), QueueNames.DEFAULT),
						Json.objectText(request.metadata()), dependsOn, request.retry(),
						NotBefore.parse("notBefore", request.notBefore()))));
		return id;
	}

	/** Adds the edge; false when it already existed (nothing changed). */
	boolean addDependency(UUID itemId, UUID dependsOnId) {
		return this.transactions.inTransaction(() -> {
			this.graph.lockForChange();
			LockedItem target = lockOpenItemAndTarget(itemId, dependsOnId);
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
			LockedItem target = lockOpenItemAndTarget(itemId, dependsOnId);
			if (target == null || !this.dependencies.delete(itemId, dependsOnId)) {
				throw new DependencyNotFound(itemId, dependsOnId);
			}
			if (target.status() != ItemStatus.COMPLETED) {
				this.readiness.adjust(BlockerDelta.dependencies(itemId, -1));
			}
		});
	}

	/**
	 * Locks both ends of an edge in id order; the item must exist and be open. Returns
	 * the target, or null when it does not exist.
	 */
	private LockedItem lockOpenItemAndTarget(UUID itemId, UUID dependsOnId) {
		Map<UUID, LockedItem> locked = this.items.lock(List.of(itemId, dependsOnId));
		LockedItem item = locked.get(itemId);
		if (item == null) {
			throw new ItemNotFound(itemId);
		}
		item.requireOpen();
		return locked.get(dependsOnId);
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

	/**
	 * {@code PATCH /items/{id}}: a new notBefore (null clears it) for an item that is
	 * neither terminal nor leased; the item settles to blocked until then, or ready.
	 */
	void reschedule(UUID itemId, Instant notBefore) {
		this.transactions.inTransaction(() -> {
			LockedItem item = this.items.lockExisting(itemId).requireOpen();
			if (item.status() == ItemStatus.LEASED) {
				throw new ItemLeased(itemId);
			}
			this.readiness.reschedule(NotBefore.at(itemId, notBefore));
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
