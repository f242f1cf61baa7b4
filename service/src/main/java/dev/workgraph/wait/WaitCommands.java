package dev.workgraph.wait;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.Readiness;
import dev.workgraph.lease.Fencing;
import dev.workgraph.lease.LeaseHolders;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.sql.Transactions;
import dev.workgraph.sql.Uuid7;
import dev.workgraph.validation.Json;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseView;
import dev.workgraph.view.WaitView;

import org.springframework.stereotype.Service;

/**
 * Registering a wait and receiving an event, each one transaction that first takes the
 * event key's lock ({@link EventKeys}), so that whichever commits second sees the other:
 * a wait registered after its event is matched by it at once (while the event is
 * retained), an event sent after the wait matches it. Neither can miss the other.
 *
 * <p>
 * Lock order: the event key, then items (in id order), then waits. Waits are registered
 * only under a current lease, and an item with an open wait is blocked, so an event never
 * waits for a worker's transaction.
 */
@Service
class WaitCommands {

	/** The longest deadline: a year. */
	static final long MAX_TIMEOUT_SECONDS = 31_536_000;

	private final Transactions transactions;

	private final EventKeys keys;

	private final Events events;

	private final Waits waits;

	private final Fencing fencing;

	private final Readiness readiness;

	private final ItemViews items;

	private final LeaseHolders holders;

	private final WaitProperties properties;

	private final WaitMetrics metrics;

	WaitCommands(Transactions transactions, EventKeys keys, Events events, Waits waits, Fencing fencing,
			Readiness readiness, ItemViews items, LeaseHolders holders, WaitProperties properties,
			WaitMetrics metrics) {
		this.transactions = transactions;
		this.keys = keys;
		this.events = events;
		this.waits = waits;
		this.fencing = fencing;
		this.readiness = readiness;
		this.items = items;
		this.holders = holders;
		this.properties = properties;
		this.metrics = metrics;
	}

	/**
	 * Parks the lease's item on the event: the lease ends {@code waiting}; the item is
	 * blocked by the open wait, or, when a retained event of that name and key matches at
	 * once, settles as if the event had just come. Fenced: a lease that is not current
	 * writes nothing.
	 */
	Registered register(UUID leaseId, WaitRequest request) {
		OnTimeout onTimeout = OnTimeout.parse(request.onTimeout());
		Integer timeoutSeconds = timeoutSeconds(request.timeoutSeconds());
		String name = request.event().name();
		String key = request.event().key();
		long epoch = request.epoch();
		UUID waitId = Uuid7.next();
		Registration registration = this.transactions.inTransaction(() -> {
			this.keys.lock(name, key);
			this.fencing.lockItem(leaseId, epoch);
			String retained = this.events.latestRetained(name, key, this.properties.retentionSeconds()).orElse(null);
			Waits.Inserted wait = this.waits
				.insertIfLeaseCurrent(waitId, leaseId, epoch, name, key, onTimeout, timeoutSeconds, retained)
				.orElseThrow(() -> this.fencing.rejection(leaseId, epoch));
			LeaseView ended = this.fencing.end(leaseId, epoch, LeaseOutcome.WAITING, null);
			if (wait.matched()) {
				this.readiness.settleAfterLeaseEnded(List.of(wait.itemId()));
			}
			else {
				this.readiness.adjust(List.of(BlockerDelta.waits(wait.itemId(), +1)), List.of(wait.itemId()));
			}
			return new Registration(ended, wait.matched());
		});
		this.holders.ended(leaseId);
		this.metrics.registered(registration.matchedAtOnce());
		ItemView item = this.items.find(registration.lease().itemId()).orElseThrow();
		WaitView wait = item.waits().stream().filter((w) -> w.id().equals(waitId)).findFirst().orElseThrow();
		return new Registered(wait, registration.lease(), item);
	}

	/**
	 * Records the event and matches every open wait of its name and key; an event whose
	 * sender's id was seen before is not recorded again ({@code duplicate}).
	 */
	Received receive(EventRequest request) {
		UUID eventId = Uuid7.next();
		String payload = Json.textOrNull(request.payload());
		Received received = this.transactions.inTransaction(() -> {
			this.keys.lock(request.name(), request.key());
			Optional<String> recorded = this.events.insert(eventId, request.id(), request.name(), request.key(),
					payload);
			if (recorded.isEmpty()) {
				Events.Recorded first = this.events.byClientId(request.id()).orElseThrow();
				return new Received(first.eventId(), first.matchedWaits(), true);
			}
			List<Waits.OpenWait> open = this.waits.openFor(request.name(), request.key());
			if (open.isEmpty()) {
				return new Received(eventId, 0, false);
			}
			// Items first, as everywhere (a cancellation locks the item, then its waits).
			this.readiness.lockItems(open.stream().map(Waits.OpenWait::itemId).distinct().toList());
			List<UUID> matchedItems = this.waits.matchIfOpen(open.stream().map(Waits.OpenWait::id).toList(),
					recorded.get());
			List<BlockerDelta> deltas = new ArrayList<>();
			matchedItems.forEach((itemId) -> deltas.add(BlockerDelta.waits(itemId, -1)));
			this.readiness.adjust(deltas);
			this.events.countMatched(eventId, matchedItems.size());
			return new Received(eventId, matchedItems.size(), false);
		});
		this.metrics.received(received);
		return received;
	}

	private static Integer timeoutSeconds(Long given) {
		if (given == null) {
			return null;
		}
		if (given < 1 || given > MAX_TIMEOUT_SECONDS) {
			throw new InvalidRequest("timeoutSeconds", "must be between 1 and " + MAX_TIMEOUT_SECONDS);
		}
		return given.intValue();
	}

	private record Registration(LeaseView lease, boolean matchedAtOnce) {
	}

	/**
	 * The answer of {@code POST /leases/{id}/waits}: the wait, the ended lease, the item.
	 */
	record Registered(@JsonProperty("wait") WaitView registered, LeaseView lease, ItemView item) {
	}

	/**
	 * The answer of {@code POST /events}: the event's id (the first one's, for a repeat
	 * of the sender's id) and how many open waits it matched when it arrived.
	 */
	record Received(UUID eventId, int matchedWaits, @JsonIgnore boolean duplicate) {
	}

}
