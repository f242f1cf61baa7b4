package dev.workgraph.chaos;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import dev.workgraph.chaos.Client.Call;
import dev.workgraph.chaos.Client.Reply;
import tools.jackson.databind.JsonNode;

/**
 * The operator who plans: creates items (some with dependencies, some as children of
 * existing items, some scheduled a moment ahead with {@code notBefore}, some with a retry
 * policy of few attempts and short back-offs), adds and removes dependencies, cancels
 * subtrees, and looks around. Creation carries an Idempotency-Key and is retried until
 * the service gives a clear answer, as a careful client would, so the items it created
 * are known exactly.
 *
 * <p>
 * During the drain it only unblocks: an item waiting on a cancelled dependency stays
 * blocked until an operator removes that edge (docs/http-api.md, "Blockers"), so it
 * removes such edges.
 */
final class Planner implements Runnable {

	private static final int CREATE_ATTEMPTS = 30;

	private final Random random;

	private final Client client;

	private final World world;

	private final ChaosSettings settings;

	private final Tally tally;

	private int instance;

	Planner(long seed, Client client, World world, ChaosSettings settings, Tally tally) {
		this.random = new Random(seed);
		this.client = client;
		this.world = world;
		this.settings = settings;
		this.tally = tally;
	}

	@Override
	public void run() {
		long nextUnblock = System.nanoTime();
		while (!this.world.stopped()) {
			if (this.world.loading()) {
				plan();
				// Now and then, as operators do, free items stuck behind cancelled work:
				// otherwise they pile up until nothing is ready.
				if (System.nanoTime() > nextUnblock) {
					unblock();
					nextUnblock = System.nanoTime() + 3_000_000_000L;
				}
				pause(10, 90);
			}
			else {
				unblock();
				pause(200, 400);
			}
		}
	}

	private void plan() {
		int choice = this.random.nextInt(100);
		if (choice < 45) {
			// Keep the workers busy: top up quickly while few items are open.
			long open = this.world.openItems();
			for (int i = (open < this.settings.maxOpenItems() / 2) ? 3 : 1; i > 0
					&& open < this.settings.maxOpenItems(); i--) {
				create();
			}
		}
		else if (choice < 58) {
			addDependency();
		}
		else if (choice < 64) {
			removeDependency();
		}
		else if (choice < 67) {
			cancelItem();
		}
		else {
			look();
		}
	}

	/** Creates one item and returns its id, or null when it was refused or unknown. */
	UUID create() {
		String token = this.world.token("i");
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("title", token);
		if (this.random.nextBoolean()) {
			body.put("priority", this.random.nextInt(21) - 10);
		}
		body.put("queue", World.QUEUES.get(this.random.nextInt(World.QUEUES.size())));
		if (this.random.nextInt(100) < 30) {
			body.put("metadata", Map.of("source", "planner", "n", this.random.nextInt(1000)));
		}
		if (this.random.nextInt(100) < 15) {
			// Scheduled a moment ahead (the machine's clock is PostgreSQL's).
			body.put("notBefore", Instant.now().plusMillis(200 + this.random.nextInt(600)).toString());
			this.tally.add("items_scheduled");
		}
		if (this.random.nextInt(100) < 25) {
			// Few attempts, short back-offs: failures and expiries use them up.
			body.put("retry", Map.of("maxAttempts", 1 + this.random.nextInt(3), "backoffSeconds",
					this.random.nextInt(2), "maxBackoffSeconds", 2));
		}
		List<String> dependsOn = new ArrayList<>();
		if (this.random.nextInt(100) < 30) {
			for (int i = 1 + this.random.nextInt(2); i > 0; i--) {
				UUID target = this.world.anyItem(this.random);
				if (target != null && !dependsOn.contains(target.toString())) {
					dependsOn.add(target.toString());
				}
			}
		}
		if (!dependsOn.isEmpty()) {
			body.put("dependsOn", dependsOn);
		}
		UUID parent = (this.random.nextInt(100) < 15) ? this.world.anyItem(this.random) : null;
		if (parent != null) {
			body.put("parentId", parent.toString());
		}
		if (this.random.nextInt(100) < 10) {
			return createTwiceAtOnce(token, body);
		}
		return createWithRetries("planner", token, body, this.client, this.world, this.random, this::nextInstance);
	}

	/**
	 * The same create, with the same Idempotency-Key, sent to both instances at once:
	 * whatever the answers, at most one item may come of it.
	 */
	private UUID createTwiceAtOnce(String token, Map<String, Object> body) {
		this.tally.add("duplicate_requests");
		UUID[] ids = new UUID[2];
		Thread[] threads = new Thread[2];
		for (int i = 0; i < 2; i++) {
			int copy = i;
			int instance = this.instance + i;
			threads[i] = Thread.ofVirtual()
				.start(() -> ids[copy] = createWithRetries("planner", token, body, this.client, this.world,
						new Random(token.hashCode() + copy), () -> instance));
		}
		for (Thread thread : threads) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (ids[0] != null && ids[1] != null && !ids[0].equals(ids[1])) {
			this.client.violation("4-drained-nothing-lost",
					"one Idempotency-Key (" + token + ") created two items: " + ids[0] + " and " + ids[1]);
		}
		return (ids[0] != null) ? ids[0] : ids[1];
	}

	/**
	 * POST /items with an Idempotency-Key, retried with the same key and body while the
	 * service is unavailable.
	 */
	static UUID createWithRetries(String actor, String token, Map<String, Object> body, Client client, World world,
			Random random, java.util.function.IntSupplier instance) {
		for (int attempt = 0; attempt < CREATE_ATTEMPTS && !world.stopped(); attempt++) {
			Reply reply = client.send(Call.post(actor, Op.CREATE, "/items", body)
				.header("Idempotency-Key", token)
				.token(token)
				.via(instance.getAsInt()));
			if (reply.ok()) {
				UUID id = reply.exchange().itemId();
				world.created(id, reply.body().path("title").asString());
				for (JsonNode dependency : reply.body().path("dependsOn")) {
					world.edgeAdded(id, Client.uuid(dependency.path("id")));
				}
				return id;
			}
			if (!reply.unavailable()) {
				return null;
			}
			try {
				Thread.sleep(200 + random.nextInt(800));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		world.outcomeUnknown(token);
		return null;
	}

	private void addDependency() {
		UUID item = this.world.anyItem(this.random);
		UUID target = this.world.anyItem(this.random);
		if (item == null) {
			return;
		}
		Reply reply = send(Call
			.post("planner", Op.ADD_DEPENDENCY, "/items/" + item + "/dependencies",
					Map.of("dependsOn", target.toString()))
			.item(item));
		if (reply.ok()) {
			this.world.edgeAdded(item, target);
		}
	}

	private void removeDependency() {
		World.Edge edge = this.world.anyEdge(this.random);
		if (edge == null) {
			return;
		}
		Reply reply = send(Call
			.delete("planner", Op.REMOVE_DEPENDENCY, "/items/" + edge.item() + "/dependencies/" + edge.dependsOn())
			.item(edge.item()));
		if (reply.status() == 204 || reply.status() == 404) {
			this.world.edgeRemoved(edge);
		}
	}

	private void cancelItem() {
		UUID item = this.world.anyItem(this.random);
		if (item == null) {
			return;
		}
		this.tally.add("operator_cancels");
		send(Call.post("planner", Op.CANCEL_ITEM, "/items/" + item + "/cancel", Map.of("reason", "not needed any more"))
			.item(item));
	}

	private void look() {
		UUID item = this.world.anyItem(this.random);
		switch (this.random.nextInt(4)) {
			case 0 -> {
				if (item != null) {
					send(Call.get("planner", Op.READ, "/items/" + item).item(item));
				}
			}
			case 1 -> {
				if (item != null) {
					send(Call.get("planner", Op.READ, "/items/" + item + "/leases").item(item));
				}
			}
			case 2 -> send(Call.get("planner", Op.READ, "/items?status=ready&limit=20"));
			default -> send(Call.get("planner", Op.READ, "/attention-requests?status=open&limit=10"));
		}
	}

	/** Removes every edge that keeps an item waiting on a cancelled dependency. */
	private void unblock() {
		String cursor = null;
		do {
			Reply page = send(Call.get("planner", Op.READ,
					"/items?status=blocked&limit=200" + ((cursor != null) ? "&cursor=" + cursor : "")));
			if (page.status() != 200) {
				return;
			}
			for (JsonNode item : page.body().path("items")) {
				for (JsonNode dependency : item.path("dependsOn")) {
					if ("cancelled".equals(dependency.path("status").asString())) {
						send(Call
							.delete("planner", Op.REMOVE_DEPENDENCY,
									"/items/" + item.path("id").asString() + "/dependencies/"
											+ dependency.path("id").asString())
							.item(Client.uuid(item.path("id"))));
						this.tally.add("edges_to_cancelled_items_removed");
					}
				}
			}
			cursor = page.body().path("nextCursor").asString(null);
		}
		while (cursor != null && !this.world.stopped());
	}

	private Reply send(Call call) {
		Reply reply = this.client.send(call.via(this.instance));
		if (reply.unavailable()) {
			this.instance++;
		}
		return reply;
	}

	private int nextInstance() {
		return this.instance++;
	}

	private void pause(int minMillis, int maxMillis) {
		try {
			Thread.sleep(minMillis + this.random.nextInt(maxMillis - minMillis + 1));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
