package dev.workgraph.item;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scheduled items (docs/http-api.md, "Scheduled items"): {@code notBefore} blocks an item
 * until PostgreSQL's clock reaches it; the promoter (run here by hand, as the reaper is)
 * makes it ready with {@code readySince = notBefore}, waking waiting claims.
 */
class ScheduledItemTests extends LeaseTestSupport {

	@Test
	void anItemScheduledForLaterIsBlockedByItsTimeAlone() {
		Instant at = databaseNow().plus(Duration.ofHours(1));
		JsonNode item = createItem(Map.of("title", "tomorrow's report", "notBefore", at.toString()));
		assertThat(item.path("status").asString()).isEqualTo("blocked");
		assertThat(instant(item.path("blockers").path("notBefore"))).isEqualTo(at);
		assertThat(item.path("blockers").path("unmetDependencies").asInt()).isZero();
		assertThat(item.path("readySince").isNull()).isTrue();
		nothingToClaim();
		assertThat(count("select count(*) from ready_items")).isZero();
		assertThat(this.reaper.promoteDue()).isZero();
		assertThat(status(uuid(item.path("id")))).isEqualTo("blocked");
	}

	@Test
	void aDueItemIsPromotedWithReadySinceItsTimeAndRanksByIt() {
		UUID early = createItem("ready an hour ago");
		UUID scheduled = uuid(createItem(
				Map.of("title", "scheduled", "notBefore", databaseNow().plus(Duration.ofHours(1)).toString()))
			.path("id"));
		// Its time comes: an instant before the other item became ready.
		Instant due = instant(item(early).path("readySince")).minusSeconds(5);
		this.jdbc.sql("update work_items set not_before = :at::timestamptz where id = :id")
			.param("at", due.toString())
			.param("id", scheduled)
			.update();
		assertThat(this.reaper.promoteDue()).isEqualTo(1);
		JsonNode promoted = item(scheduled);
		assertThat(promoted.path("status").asString()).isEqualTo("ready");
		assertThat(promoted.path("blockers").path("notBefore").isNull()).isTrue();
		assertThat(instant(promoted.path("readySince"))).isEqualTo(due);
		assertThat(itemId(claim("worker-1"))).isEqualTo(scheduled);
		assertThat(itemId(claim("worker-2"))).isEqualTo(early);
	}

	@Test
	void aTimeInThePastBlocksNothing() {
		JsonNode item = createItem(Map.of("title", "overdue", "notBefore", "1999-01-01T00:00:00+02:00"));
		assertThat(item.path("status").asString()).isEqualTo("ready");
		assertThat(item.path("blockers").path("notBefore").isNull()).isTrue();
		assertThat(itemId(claim("worker-1"))).isEqualTo(uuid(item.path("id")));
	}

	@Test
	void aDueItemWithOtherBlockersStaysBlockedUntilTheyClear() {
		UUID dependency = createItem("first");
		UUID item = createItem("second", "dependsOn", List.of(dependency), "notBefore",
				databaseNow().plus(Duration.ofHours(1)).toString());
		assertThat(item(item).path("blockers").path("notBefore").isNull()).isFalse();
		makeDue(item);
		assertThat(this.reaper.promoteDue()).isEqualTo(1);
		JsonNode promoted = item(item);
		assertThat(promoted.path("status").asString()).isEqualTo("blocked");
		assertThat(promoted.path("blockers").path("notBefore").isNull()).isTrue();
		assertOk(complete(claim("worker-1"), Map.of()));
		assertThat(status(item)).isEqualTo("ready");
	}

	@Test
	void blockersThatClearBeforeTheTimeLeaveTheItemBlockedUntilThen() {
		UUID dependency = createItem("first");
		UUID item = createItem("second", "dependsOn", List.of(dependency), "notBefore",
				databaseNow().plus(Duration.ofHours(1)).toString());
		assertOk(complete(claim("worker-1"), Map.of()));
		assertThat(status(item)).isEqualTo("blocked");
		nothingToClaim();
		makeDue(item);
		assertThat(this.reaper.promoteDue()).isEqualTo(1);
		assertThat(status(item)).isEqualTo("ready");
	}

	@Test
	void decomposeChildrenMayBeScheduled() {
		createItem("parent");
		JsonNode claim = claim("planner");
		Instant later = databaseNow().plus(Duration.ofMinutes(30));
		Api.Response decomposed = decompose(claim,
				List.of(child("now"), child("later", "notBefore", later.toString())));
		assertCreated(decomposed);
		Map<String, JsonNode> byTitle = new HashMap<>();
		decomposed.body().path("children").forEach((c) -> byTitle.put(c.path("title").asString(), c));
		assertThat(byTitle.get("child now").path("status").asString()).isEqualTo("ready");
		assertThat(byTitle.get("child later").path("status").asString()).isEqualTo("blocked");
		assertThat(instant(byTitle.get("child later").path("blockers").path("notBefore"))).isEqualTo(later);
	}

	@Test
	void anOperatorReschedulesAReadyItemAndClearsTheTimeAgain() {
		UUID item = createItem("movable");
		Instant at = databaseNow().plus(Duration.ofDays(2));
		Api.Response patched = this.api.patch("/items/" + item, Map.of("notBefore", at.toString()));
		assertOk(patched);
		assertThat(patched.body().path("status").asString()).isEqualTo("blocked");
		assertThat(instant(patched.body().path("blockers").path("notBefore"))).isEqualTo(at);
		nothingToClaim();

		Map<String, Object> clear = new HashMap<>();
		clear.put("notBefore", null);
		Api.Response cleared = this.api.patch("/items/" + item, clear);
		assertOk(cleared);
		assertThat(cleared.body().path("status").asString()).isEqualTo("ready");
		assertThat(cleared.body().path("blockers").path("notBefore").isNull()).isTrue();
		assertThat(itemId(claim("worker-1"))).isEqualTo(item);
	}

	@Test
	void aPatchWithoutNotBeforeChangesNothing() {
		UUID item = createItem("left alone", "notBefore", databaseNow().plus(Duration.ofHours(1)).toString());
		Map<String, Object> before = fingerprint();
		Api.Response patched = this.api.patch("/items/" + item, Map.of());
		assertOk(patched);
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void leasedAndTerminalItemsCannotBeRescheduled() {
		UUID leased = createItem("held");
		JsonNode claim = claim("worker-1");
		Map<String, Object> later = Map.of("notBefore", databaseNow().plus(Duration.ofHours(1)).toString());
		Map<String, Object> before = fingerprint();
		assertProblem(this.api.patch("/items/" + leased, later), 409, "item_leased");
		assertThat(fingerprint()).isEqualTo(before);
		assertOk(complete(claim, Map.of()));
		assertProblem(this.api.patch("/items/" + leased, later), 409, "item_terminal");
		assertProblem(this.api.patch("/items/" + UUID.randomUUID(), later), 404, "not_found");
		assertProblem(this.api.patch("/items/not-an-id", later), 404, "not_found");
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"notBefore\": \"10000-01-01T00:00:00Z\"}",
			"{\"notBefore\": \"+10000-01-01T00:00:00Z\"}", "{\"notBefore\": \"1969-12-31T23:59:59Z\"}",
			"{\"notBefore\": \"-0001-01-01T00:00:00Z\"}", "{\"notBefore\": \"2030-01-01\"}",
			"{\"notBefore\": \"2030-01-01T00:00:00\"}", "{\"notBefore\": \"tomorrow\"}", "{\"notBefore\": \"\"}",
			"{\"notBefore\": 1893456000}", "{\"notBefore\": true}", "{\"notBefore\": {}}",
			"{\"notBefore\": [\"2030-01-01T00:00:00Z\"]}", "{\"notBefore\": \"2030-13-01T00:00:00Z\"}",
			"{\"notBefore\": \"2030-01-01T00:00:00Z\", \"status\": \"x\"}" })
	void hostileTimesAreRefusedEverywhereAndWriteNothing(String body) {
		UUID item = createItem("target");
		Map<String, Object> before = fingerprint();
		Api.Response patched = this.api.patch("/items/" + item, body);
		assertProblem(patched, 422, "validation_failed");
		String created = body.replaceFirst("\\{", "{\"title\": \"t\", ");
		assertProblem(this.api.post("/items", created), 422, "validation_failed");
		JsonNode claim = claim("planner");
		String child = body.replaceFirst("\\{", "{\"key\": \"a\", \"title\": \"t\", ");
		assertProblem(this.api.post("/leases/" + leaseId(claim) + "/decompose",
				"{\"epoch\": " + epoch(claim) + ", \"children\": [" + child + "]}"), 422, "validation_failed");
		assertOk(release(claim));
		assertThat(count("select count(*) from work_items")).isEqualTo(1);
		assertThat(count("select count(*) from work_items where not_before is not null")).isZero();
		assertThat(before).isNotNull();
	}

	@Test
	void theLimitsOfTheRangeAreAccepted() {
		JsonNode last = createItem(Map.of("title", "far", "notBefore", "9999-12-31T23:59:59.999999Z"));
		assertThat(last.path("blockers").path("notBefore").asString()).isEqualTo("9999-12-31T23:59:59.999999Z");
		JsonNode first = createItem(Map.of("title", "epoch", "notBefore", "1970-01-01T00:00:00Z"));
		assertThat(first.path("status").asString()).isEqualTo("ready");
	}

	@Test
	void aReleaseMayAskForADelay() {
		UUID item = createItem("rate limited");
		JsonNode claim = claim("worker-1");
		Instant before = databaseNow();
		Api.Response released = this.api.post("/leases/" + leaseId(claim) + "/release",
				Map.of("epoch", epoch(claim), "reason", "429 from upstream", "retryAfterSeconds", 90));
		assertOk(released);
		JsonNode view = released.body().path("item");
		assertThat(view.path("status").asString()).isEqualTo("blocked");
		assertThat(instant(view.path("blockers").path("notBefore"))).isBetween(before.plusSeconds(90),
				databaseNow().plusSeconds(90));
		nothingToClaim();
		assertThat(status(item)).isEqualTo("blocked");

		makeDue(item);
		this.reaper.promoteDue();
		JsonNode again = claim("worker-2");
		Api.Response immediate = this.api.post("/leases/" + leaseId(again) + "/release",
				Map.of("epoch", epoch(again), "retryAfterSeconds", 0));
		assertOk(immediate);
		assertThat(immediate.body().path("item").path("status").asString()).isEqualTo("ready");
	}

	@ParameterizedTest
	@ValueSource(strings = { "-1", "2592001", "1e400", "\"60\"", "1.5", "true", "99999999999999999999" })
	void hostileDelaysAreRefusedAndWriteNothing(String delay) {
		createItem("target");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		Api.Response response = this.api.post("/leases/" + leaseId(claim) + "/release",
				"{\"epoch\": " + epoch(claim) + ", \"retryAfterSeconds\": " + delay + "}");
		assertThat(response.status()).as(response.toString()).isIn(400, 422);
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void aPromotionWakesAWaitingClaim() throws Exception {
		UUID item = createItem("wake me", "notBefore", databaseNow().plus(Duration.ofHours(1)).toString());
		CompletableFuture<Api.Response> waiting = CompletableFuture
			.supplyAsync(() -> this.api.post("/claims", Map.of("workerId", "patient", "waitSeconds", 20)));
		Thread.sleep(300);
		assertThat(waiting).isNotDone();
		makeDue(item);
		long started = System.nanoTime();
		assertThat(this.reaper.promoteDue()).isEqualTo(1);
		Api.Response claimed = waiting.get(10, TimeUnit.SECONDS);
		assertThat(claimed.status()).isEqualTo(201);
		assertThat(claimed.body().path("item").path("id").asString()).isEqualTo(item.toString());
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void promotersRacingEachOtherPromoteEveryItemOnce() throws Exception {
		int items = 3000;
		this.jdbc.sql("""
				insert into work_items (id, title, status, not_before)
				select gen_random_uuid(), 'due ' || i, 'blocked', now() - interval '1 second' * i
				from generate_series(1, :n) i
				""").param("n", items).update();
		int promoters = 4;
		CyclicBarrier start = new CyclicBarrier(promoters);
		List<Future<Integer>> counts = new ArrayList<>();
		try (ExecutorService threads = Executors.newFixedThreadPool(promoters)) {
			for (int i = 0; i < promoters; i++) {
				counts.add(threads.submit(() -> {
					start.await();
					return this.reaper.promoteDue();
				}));
			}
			int total = 0;
			for (Future<Integer> count : counts) {
				total += count.get(60, TimeUnit.SECONDS);
			}
			assertThat(total).isEqualTo(items);
		}
		assertThat(count("select count(*) from ready_items")).isEqualTo(items);
		assertThat(count("select count(*) from work_items where status = 'ready' and ready_since < now()"))
			.isEqualTo(items);
		assertThat(this.reaper.promoteDue()).isZero();
	}

	private void makeDue(UUID item) {
		this.jdbc.sql("update work_items set not_before = now() - interval '1 millisecond' where id = :id")
			.param("id", item)
			.update();
	}

}
