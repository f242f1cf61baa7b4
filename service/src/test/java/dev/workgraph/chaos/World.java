package dev.workgraph.chaos;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the simulated actors know, shared between them: the items the service confirmed
 * creating, the requests whose outcome stayed unknown (so items they may have created are
 * explained, not "unexplained"), the dependency edges added, the phase of the run; who
 * the workers are now (so that one can hand a lease to another), the leases handed to
 * each, and the keys of the events waited for and sent.
 */
final class World {

	/** Claimable queues the workload uses; the fault injector's items live elsewhere. */
	static final List<String> QUEUES = List.of("default", "alpha", "beta");

	static final String SENTINEL_QUEUE = "chaos.sentinel";

	/** The name of every event the run sends and waits for; keys tell them apart. */
	static final String EVENT_NAME = "chaos.signal";

	/**
	 * Queues capped before the load starts, with their {@code maxActiveLeases}: the
	 * checker's rule {@code 7-capped-queue-within-cap} holds the history to them.
	 */
	static final Map<String, Integer> CAPS = Map.of("beta", 3);

	enum Phase {

		/** Random and adversarial behaviour, faults injected. */
		LOAD,
		/** Cooperative behaviour only, until every item is terminal. */
		DRAIN,
		/** Everyone stops. */
		STOP

	}

	private volatile Phase phase = Phase.LOAD;

	private final Map<UUID, String> items = new ConcurrentHashMap<>();

	private final List<UUID> itemList = new ArrayList<>();

	private final Set<String> unknownOutcomeTokens = ConcurrentHashMap.newKeySet();

	private final Map<String, Edge> edges = new ConcurrentHashMap<>();

	private final AtomicLong tokens = new AtomicLong();

	private volatile long openItems;

	private final Map<Integer, String> workerIds = new ConcurrentHashMap<>();

	private final Map<Integer, Queue<Handed>> handedTo = new ConcurrentHashMap<>();

	/** Keys of waits registered (or perhaps registered) that no event was sent for. */
	private final Queue<String> awaitedKeys = new ConcurrentLinkedQueue<>();

	/** Keys an event was sent for, so that a later wait on one is matched at once. */
	private final List<String> signalledKeys = new ArrayList<>();

	/** Event ids sent, so that some are sent again (a sender's retry). */
	private final List<String> eventIds = new ArrayList<>();

	Phase phase() {
		return this.phase;
	}

	void phase(Phase phase) {
		this.phase = phase;
	}

	boolean loading() {
		return this.phase == Phase.LOAD;
	}

	boolean stopped() {
		return this.phase == Phase.STOP;
	}

	/** A token unique in this run, put in the titles of the items a request creates. */
	String token(String prefix) {
		return prefix + this.tokens.incrementAndGet();
	}

	/** The service confirmed creating this item; {@code title} starts with its token. */
	void created(UUID id, String title) {
		if (this.items.putIfAbsent(id, title) == null) {
			synchronized (this.itemList) {
				this.itemList.add(id);
			}
		}
	}

	Map<UUID, String> items() {
		return Map.copyOf(this.items);
	}

	int itemCount() {
		return this.items.size();
	}

	/** A random known item (any status), or null before any exists. */
	UUID anyItem(Random random) {
		synchronized (this.itemList) {
			if (this.itemList.isEmpty()) {
				return null;
			}
			// Favour recent items: they are more likely to be open.
			int size = this.itemList.size();
			int window = Math.min(size, 200);
			return this.itemList.get(size - 1 - random.nextInt(window));
		}
	}

	/** A request that creates items got no clear answer: it may or may not have. */
	void outcomeUnknown(String token) {
		this.unknownOutcomeTokens.add(token);
	}

	Set<String> unknownOutcomeTokens() {
		return Set.copyOf(this.unknownOutcomeTokens);
	}

	void edgeAdded(UUID item, UUID dependsOn) {
		this.edges.put(item + ">" + dependsOn, new Edge(item, dependsOn));
	}

	Edge anyEdge(Random random) {
		List<Edge> all = new ArrayList<>(this.edges.values());
		return all.isEmpty() ? null : all.get(random.nextInt(all.size()));
	}

	void edgeRemoved(Edge edge) {
		this.edges.remove(edge.item() + ">" + edge.dependsOn());
	}

	long openItems() {
		return this.openItems;
	}

	void openItems(long count) {
		this.openItems = count;
	}

	/** Worker {@code index} acts as {@code workerId} from now on. */
	void workerIs(int index, String workerId) {
		this.workerIds.put(index, workerId);
	}

	/** Another worker than {@code index}, as it is now, or null when there is none. */
	Map.Entry<Integer, String> anotherWorker(int index, Random random) {
		List<Map.Entry<Integer, String>> others = this.workerIds.entrySet()
			.stream()
			.filter((entry) -> entry.getKey() != index)
			.map((entry) -> Map.entry(entry.getKey(), entry.getValue()))
			.toList();
		return others.isEmpty() ? null : others.get(random.nextInt(others.size()));
	}

	/** A handoff to worker {@code index} was acknowledged: it should use the lease. */
	void handedOff(int index, Handed lease) {
		this.handedTo.computeIfAbsent(index, (key) -> new ConcurrentLinkedQueue<>()).add(lease);
	}

	/** The next lease handed to worker {@code index}, or null. */
	Handed nextHanded(int index) {
		Queue<Handed> leases = this.handedTo.get(index);
		return (leases != null) ? leases.poll() : null;
	}

	/** A wait on this key may exist: an event for it is due. */
	void awaited(String key) {
		this.awaitedKeys.add(key);
	}

	/** A key some wait is waiting on, taken (so that its event is sent once), or null. */
	String takeAwaited() {
		return this.awaitedKeys.poll();
	}

	void signalled(String key) {
		synchronized (this.signalledKeys) {
			this.signalledKeys.add(key);
		}
	}

	/** A key an event was sent for, or null before any. */
	String anySignalled(Random random) {
		synchronized (this.signalledKeys) {
			return this.signalledKeys.isEmpty() ? null : this.signalledKeys
				.get(this.signalledKeys.size() - 1 - random.nextInt(Math.min(50, this.signalledKeys.size())));
		}
	}

	/** A new event id for an event of this key: {@code key#n}. */
	String eventId(String key) {
		String id = key + "#" + this.tokens.incrementAndGet();
		synchronized (this.eventIds) {
			this.eventIds.add(id);
		}
		return id;
	}

	/** An event id sent before, or null before any. */
	String anyEventId(Random random) {
		synchronized (this.eventIds) {
			return this.eventIds.isEmpty() ? null : this.eventIds.get(random.nextInt(this.eventIds.size()));
		}
	}

	/** The key an event id was made for (see {@link #eventId}). */
	static String eventKey(String eventId) {
		int hash = eventId.lastIndexOf('#');
		return (hash < 0) ? eventId : eventId.substring(0, hash);
	}

	record Edge(UUID item, UUID dependsOn) {
	}

	/**
	 * A lease handed to a worker: the successor's grant as recorded, for the worker id it
	 * names, with its length and expiry.
	 */
	record Handed(String workerId, Exchange grant, int leaseSeconds, Instant expiresAt) {
	}

}
