package dev.workgraph.item;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET}/{@code PATCH /queues/{name}}: a paused queue grants nothing to any kind of
 * claim while its running leases carry on, its waiters wait and are woken by the resume;
 * a capped queue never has more active leases than its cap, whichever way it is claimed.
 */
class QueueSettingsTests extends LeaseTestSupport {

	@Test
	void aQueueWithoutItemsOrSettingsShowsNothingRunningAndNoCap() {
		JsonNode queue = assertOkBody(this.api.get("/queues/empty"));
		assertThat(queue.path("name").asString()).isEqualTo("empty");
		assertThat(queue.path("ready").asLong()).isZero();
		assertThat(queue.path("paused").asBoolean()).isFalse();
		assertThat(queue.path("maxActiveLeases").isNull()).isTrue();
		assertThat(names(this.api.get("/queues").body())).doesNotContain("empty");
	}

	@Test
	void aPausedOrCappedQueueIsListedBeforeItHasItems() {
		JsonNode paused = assertOkBody(this.api.patch("/queues/later", Map.of("paused", true)));
		assertThat(paused.path("paused").asBoolean()).isTrue();
		assertThat(paused.path("maxActiveLeases").isNull()).isTrue();
		JsonNode capped = assertOkBody(this.api.patch("/queues/later", Map.of("maxActiveLeases", 3)));
		assertThat(capped.path("paused").asBoolean()).as("a missing field keeps its value").isTrue();
		assertThat(capped.path("maxActiveLeases").asInt()).isEqualTo(3);
		JsonNode listed = this.api.get("/queues").body().path("queues").get(0);
		assertThat(listed.path("name").asString()).isEqualTo("later");
		assertThat(listed.path("paused").asBoolean()).isTrue();
		assertThat(listed.path("maxActiveLeases").asInt()).isEqualTo(3);
		Map<String, Object> uncap = new HashMap<>();
		uncap.put("maxActiveLeases", null);
		uncap.put("paused", false);
		JsonNode open = assertOkBody(this.api.patch("/queues/later", uncap));
		assertThat(open.path("maxActiveLeases").isNull()).as("null removes the cap").isTrue();
		assertThat(open.path("paused").asBoolean()).isFalse();
		assertThat(names(this.api.get("/queues").body())).doesNotContain("later");
	}

	@Test
	void aPausedQueueGrantsNothingWhileItsRunningLeasesCarryOn() {
		createItem("held", "queue", "paused", "priority", 9);
		JsonNode running = claimFrom("paused", "w0");
		createItem("waiting", "queue", "paused", "priority", 9);
		createItem("elsewhere", "queue", "open");
		assertOk(this.api.patch("/queues/paused", Map.of("paused", true)));
		nothingToClaim(Map.of("workerId", "w1", "queues", List.of("paused")));
		Api.Response batch = this.api.post("/claims/batch",
				Map.of("workerId", "w1", "queues", List.of("paused", "open"), "limit", 10));
		assertThat(batch.body().path("claims")).hasSize(1);
		assertThat(batch.body().path("claims").get(0).path("item").path("queue").asString()).isEqualTo("open");
		assertOk(renew(running, 60));
		Api.Response done = this.api.post("/leases/" + leaseId(running) + "/complete",
				Map.of("epoch", epoch(running), "claimNext", Map.of()));
		assertOk(done);
		assertThat(done.body().path("next").isNull()).as("nothing but the paused item is ready").isTrue();
		JsonNode queue = this.api.get("/queues/paused").body();
		assertThat(queue.path("ready").asLong()).isEqualTo(1);
		assertThat(queue.path("paused").asBoolean()).isTrue();
		assertThat(this.audit.run().inconsistencies()).isEmpty();
	}

	@Test
	void aWaiterOnAPausedQueueWaitsAndTheResumeWakesIt() throws Exception {
		assertOk(this.api.patch("/queues/resumed", Map.of("paused", true)));
		createItem("wanted", "queue", "resumed");
		CompletableFuture<Api.Response> waiting = CompletableFuture.supplyAsync(() -> this.api.post("/claims",
				Map.of("workerId", "patient", "queues", List.of("resumed"), "waitSeconds", 30)));
		TimeUnit.MILLISECONDS.sleep(700);
		assertThat(waiting).isNotDone();
		long resumed = System.nanoTime();
		assertOk(this.api.patch("/queues/resumed", Map.of("paused", false)));
		Api.Response claimed = waiting.get(10, TimeUnit.SECONDS);
		assertThat(claimed.status()).as(claimed.toString()).isEqualTo(201);
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumed)).isLessThan(3000);
	}

	@Test
	void aCappedQueueGrantsUpToItsCapByEveryKindOfClaimAndOneMoreWhenALeaseEnds() {
		for (int i = 0; i < 6; i++) {
			createItem("capped " + i, "queue", "capped", "priority", 5);
		}
		createItem("uncapped", "queue", "free");
		assertOk(this.api.patch("/queues/capped", Map.of("maxActiveLeases", 3)));
		JsonNode first = claimFrom("capped", "w1");
		Api.Response batch = this.api.post("/claims/batch",
				Map.of("workerId", "w2", "queues", List.of("capped"), "limit", 10));
		assertThat(batch.body().path("claims")).as("the batch gets the room that is left").hasSize(2);
		nothingToClaim(Map.of("workerId", "w3", "queues", List.of("capped")));
		JsonNode elsewhere = claim("w3");
		assertThat(elsewhere.path("item").path("queue").asString()).isEqualTo("free");
		Api.Response done = this.api.post("/leases/" + leaseId(first) + "/complete",
				Map.of("epoch", epoch(first), "claimNext", Map.of("queues", List.of("capped"))));
		assertThat(done.body().path("next").path("item").path("queue").asString())
			.as("the completion frees the slot its chained claim takes")
			.isEqualTo("capped");
		nothingToClaim(Map.of("workerId", "w4", "queues", List.of("capped")));
		assertThat(this.api.get("/queues/capped").body().path("leased").asLong()).isEqualTo(3);
		assertOk(this.api.patch("/queues/capped", Map.of("maxActiveLeases", 1)));
		assertThat(count("select count(*) from leases where queue = 'capped'")).as("lowering the cap pre-empts nothing")
			.isEqualTo(3);
		nothingToClaim(Map.of("workerId", "w4", "queues", List.of("capped")));
		assertThat(this.audit.run().inconsistencies()).isEmpty();
	}

	@Test
	void badSettingsAndImpossibleNamesAreRefusedWithNothingWritten() {
		assertProblem(this.api.patch("/queues/q", Map.of("maxActiveLeases", 0)), 422, "validation_failed");
		assertProblem(this.api.patch("/queues/q", Map.of("maxActiveLeases", 100_001)), 422, "validation_failed");
		assertProblem(this.api.patch("/queues/q", Map.of("paused", "soon")), 422, "validation_failed");
		assertProblem(this.api.patch("/queues/Not%20A%20Queue", Map.of("paused", true)), 404, "not_found");
		assertProblem(this.api.get("/queues/UPPER"), 404, "not_found");
		assertThat(count("select count(*) from queue_settings")).isZero();
		assertOk(this.api.patch("/queues/q", Map.of("maxActiveLeases", 100_000)));
	}

	private static JsonNode assertOkBody(Api.Response response) {
		assertOk(response);
		return response.body();
	}

	private static List<String> names(JsonNode list) {
		return list.path("queues").valueStream().map((queue) -> queue.path("name").asString()).toList();
	}

}
