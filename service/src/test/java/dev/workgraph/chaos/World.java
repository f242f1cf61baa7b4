package dev.workgraph.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the simulated actors know, shared between them: the items the service confirmed
 * creating, the requests whose outcome stayed unknown (so items they may have created are
 * explained, not "unexplained"), the dependency edges added, and the phase of the run.
 */
final class World {

	/** Claimable queues the workload uses; the fault injector's items live elsewhere. */
	static final List<String> QUEUES = List.of("default", "alpha", "beta");

	static final String SENTINEL_QUEUE = "chaos.sentinel";

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

	record Edge(UUID item, UUID dependsOn) {
	}

}
