package dev.workgraph.chaos;

import java.util.List;
import java.util.Map;

import dev.workgraph.chaos.Client.Call;
import dev.workgraph.chaos.Client.Reply;

/**
 * The world outside, sending events ({@code POST /events}, as a CI system or a deploy
 * tool would): for keys that workers wait on, some soon, some after their waits'
 * deadlines; for keys nobody waits on yet (a later wait on one is matched at once); the
 * same event id again (a sender's retry, and now and then twice at once through both
 * instances). Every event carries an id of its own and is retried with it until the
 * service gives a clear answer. During the drain it sends the event of every key still
 * waited on.
 */
final class Signaller extends Actor {

	private static final int SEND_ATTEMPTS = 30;

	Signaller(long seed, Client client, World world, Tally tally) {
		super(seed, client, world, tally, List.of(), 0);
	}

	@Override
	public void run() {
		while (!this.world.stopped()) {
			if (!this.world.loading()) {
				for (String key = this.world.takeAwaited(); key != null; key = this.world.takeAwaited()) {
					signal(key);
				}
				this.pacing.pause(100, 300);
				continue;
			}
			int choice = this.random.nextInt(100);
			if (choice < 45) {
				String key = this.world.takeAwaited();
				if (key != null) {
					signal(key);
				}
			}
			else if (choice < 65) {
				// Before anyone waits for it: a later wait on this key is matched at
				// once.
				signal(this.world.token("e"));
			}
			else if (choice < 80) {
				String id = this.world.anyEventId(this.random);
				if (id != null) {
					this.tally.add("events_sent_again");
					send(this.client, this.world, id, this.pacing.takeInstance());
				}
			}
			this.pacing.pause(50, 300);
		}
	}

	/** A new event for this key; one in five sent twice at once, to both instances. */
	private void signal(String key) {
		String id = this.world.eventId(key);
		this.world.signalled(key);
		if (this.random.nextInt(5) > 0) {
			send(this.client, this.world, id, this.pacing.takeInstance());
			return;
		}
		this.tally.add("events_sent_twice_at_once");
		int first = this.pacing.takeInstance();
		Thread other = Thread.ofVirtual().start(() -> send(this.client, this.world, id, first + 1));
		send(this.client, this.world, id, first);
		try {
			other.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Sends the event with this id (of the key it was made for, {@link World#eventKey}),
	 * retried with the same id while the service is unavailable. The id is the exchange's
	 * token.
	 */
	static Reply send(Client client, World world, String id, int instance) {
		Reply reply = null;
		for (int attempt = 0; attempt < SEND_ATTEMPTS && !world.stopped(); attempt++) {
			reply = client.send(Call
				.post("signaller", Op.EVENT, "/events", Map.of("name", World.EVENT_NAME, "key", World.eventKey(id),
						"id", id, "payload", Map.of("sentAs", id)))
				.token(id)
				.via(instance + attempt));
			if (!reply.unavailable()) {
				return reply;
			}
			ServiceInstance.sleep(200 + (id.hashCode() & 0x1ff));
		}
		return reply;
	}

}
