package dev.workgraph.client.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.workgraph.client.Checkpoint;
import dev.workgraph.client.Item;
import dev.workgraph.client.ItemStatus;
import dev.workgraph.client.NewItem;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On the real service, a worker goes from item to item through its completions
 * ({@code claimNext}): the service's request log shows one request per item once the
 * first claim is made, and every item is completed once, by the worker's own leases.
 */
class ChainedWorkerTests extends WorkerClientTest {

	@Test
	void aWorkerTakesItsNextItemsWithItsCompletions() throws Exception {
		int count = 30;
		List<UUID> ids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			ids.add(this.client.createItem(NewItem.titled("relay " + i).withQueue("relay")).id());
		}
		Set<UUID> handled = ConcurrentHashMap.newKeySet();
		started(worker("relay-runner", (lease) -> {
			assertThat(handled.add(lease.item().id())).as("handled once").isTrue();
			return Map.of("by", "relay-runner");
		}).queues("relay").concurrency(1).build());
		for (UUID id : ids) {
			Item done = Items.awaitStatus(this.client, id, ItemStatus.COMPLETED, Duration.ofSeconds(30));
			assertThat(done.result().path("by").asString()).isEqualTo("relay-runner");
		}
		assertThat(handled).containsExactlyInAnyOrderElementsOf(ids);
		List<RequestLog.Entry> completions = this.requests.entries()
			.stream()
			.filter((entry) -> entry.path().endsWith("/complete"))
			.toList();
		assertThat(completions).hasSize(count).allSatisfy((entry) -> assertThat(entry.status()).isEqualTo(200));
		// The first claim, and the waiting claim after the last completion found nothing
		// next: every other item came with a completion.
		long claimsBeforeTheLastCompletion = this.requests.entries()
			.stream()
			.filter((entry) -> entry.path().equals("/claims")
					&& entry.arrivedAtNanos() < completions.getLast().arrivedAtNanos())
			.count();
		assertThat(claimsBeforeTheLastCompletion).isEqualTo(1);
	}

	@Test
	void aHandlerResumesFromTheCheckpointItsPredecessorSaved() throws Exception {
		UUID id = this.client.createItem(NewItem.titled("resumable").withQueue("resume")).id();
		List<String> seen = new CopyOnWriteArrayList<>();
		started(worker("resumer", (lease) -> {
			Checkpoint last = lease.lastCheckpoint();
			seen.add((last == null) ? "none" : last.data().path("step").asString());
			if (last == null) {
				lease.checkpoint(Map.of("step", "one"));
				assertThat(lease.lastCheckpoint().seq()).isEqualTo(1);
				lease.release("let the next holder go on");
				return null;
			}
			return Map.of("resumedFrom", last.data().path("step").asString());
		}).queues("resume").concurrency(1).build());
		Item done = Items.awaitStatus(this.client, id, ItemStatus.COMPLETED, Duration.ofSeconds(30));
		assertThat(done.result().path("resumedFrom").asString()).isEqualTo("one");
		assertThat(seen).containsExactly("none", "one");
	}

}
