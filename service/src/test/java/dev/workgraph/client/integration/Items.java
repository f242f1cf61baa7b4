package dev.workgraph.client.integration;

import java.time.Duration;
import java.util.UUID;

import dev.workgraph.client.Item;
import dev.workgraph.client.ItemStatus;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.problem.ServiceUnavailable;
import dev.workgraph.client.problem.ServiceUnreachable;

/** Waiting for items, through the typed client. */
public final class Items {

	private Items() {
	}

	/**
	 * Reads the item until it has the status (riding through a service that is
	 * restarting) and returns it; fails after {@code timeout}.
	 */
	public static Item awaitStatus(WorkGraphClient client, UUID itemId, ItemStatus status, Duration timeout)
			throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		Item item = null;
		while (System.nanoTime() < deadline) {
			try {
				item = client.getItem(itemId);
				if (item.status() == status) {
					return item;
				}
			}
			catch (ServiceUnreachable | ServiceUnavailable ex) {
				// coming back
			}
			Thread.sleep(50);
		}
		throw new AssertionError("item " + itemId + " is " + ((item != null) ? item.status() : "unreadable") + " after "
				+ timeout + ", not " + status);
	}

}
