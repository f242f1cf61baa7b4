package dev.workgraph.lease.claim;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import dev.workgraph.batching.CoalescingProperties;
import dev.workgraph.sql.Transactions;
import dev.workgraph.sql.Uuid7;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Coalesced claims (docs/adr/0005): a batch hands every claim its own lease and epoch, in
 * the order the claims would have had one after the other (priority, then readySince, the
 * continuity preference among equals), never the same item twice, and 204 still means
 * that nothing is ready. The batch statements are driven directly where the ranking
 * inside one batch must be exact; through HTTP, a table lock on {@code leases} holds a
 * claim in flight so that the claims behind it are served by one batch.
 */
class CoalescedClaimTests extends LeaseTestSupport {

	private static final Duration WINDOW = Duration.ofMinutes(10);

	@Autowired
	private Claims claims;

	@Autowired
	private Transactions transactions;

	@Autowired
	private CoalescingProperties coalescing;

	@Test
	void aBatchGivesEachClaimItsOwnLeaseInClaimOrder() {
		List<UUID> byRank = new ArrayList<>();
		UUID low = createItem("low", "priority", -5);
		UUID olderMiddle = createItem("older middle", "priority", 3);
		UUID newerMiddle = createItem("newer middle", "priority", 3);
		UUID high = createItem("high", "priority", 9);
		byRank.addAll(List.of(high, olderMiddle, newerMiddle, low));
		List<Claims.Ask> asks = List.of(ask("w1", 60), ask("w2", 120), ask("w1", 30), ask("w3", 600), ask("w4", 60));
		List<Optional<Claims.Claimed>> claimed = batch(asks, null);
		assertThat(claimed).hasSize(5);
		for (int i = 0; i < 4; i++) {
			Claims.Claimed claim = claimed.get(i).orElseThrow();
			Claims.Ask ask = asks.get(i);
			assertThat(claim.item().id()).isEqualTo(byRank.get(i));
			assertThat(claim.lease().id()).isEqualTo(ask.leaseId());
			assertThat(claim.lease().workerId()).isEqualTo(ask.workerId());
			assertThat(claim.lease().epoch()).isEqualTo(1);
			assertThat(Duration.between(claim.lease().acquiredAt(), claim.lease().expiresAt()))
				.isEqualTo(Duration.ofSeconds(ask.leaseSeconds()));
			JsonNode lease = lease(ask.leaseId());
			assertThat(lease.path("active").asBoolean()).isTrue();
			assertThat(lease.path("itemId").asString()).isEqualTo(byRank.get(i).toString());
			assertThat(status(byRank.get(i))).isEqualTo("leased");
		}
		assertThat(claimed.get(4)).isEmpty();
		assertThat(count("select count(*) from ready_items")).isZero();
	}

	@Test
	void epochsKeepIncreasingAcrossBatches() {
		UUID a = createItem("a");
		UUID b = createItem("b");
		for (long round = 1; round <= 3; round++) {
			List<Optional<Claims.Claimed>> claimed = batch(List.of(ask("x", 60), ask("y", 60)), null);
			assertThat(claimed).allSatisfy((claim) -> assertThat(claim).isPresent());
			for (Optional<Claims.Claimed> claim : claimed) {
				assertThat(claim.orElseThrow().lease().epoch()).isEqualTo(round);
				assertOk(this.api.post("/leases/" + claim.orElseThrow().lease().id() + "/release",
						Map.of("epoch", round)));
			}
		}
		for (UUID item : List.of(a, b)) {
			assertThat(leasesOf(item)).extracting((lease) -> lease.path("epoch").asLong()).containsExactly(1L, 2L, 3L);
		}
	}

	@Test
	void thePreferredWorkerGetsItsItemAmongEqualsWhereverItIsInTheBatch() {
		for (int asksFirst = 0; asksFirst < 2; asksFirst++) {
			UUID older = createItem("older " + asksFirst, "queue", "c");
			UUID preferred = createItem("preferred " + asksFirst, "queue", "c");
			preferFor(preferred, "asker");
			List<Claims.Ask> asks = (asksFirst == 1) ? List.of(ask("asker", 60), ask("other", 60))
					: List.of(ask("other", 60), ask("asker", 60));
			Map<String, UUID> got = byWorker(asks, batch(asks, List.of("c")));
			assertThat(got).containsEntry("asker", preferred).containsEntry("other", older);
		}
	}

	@Test
	void aHigherPriorityStillBeatsThePreferenceInsideABatch() {
		UUID preferred = createItem("preferred");
		UUID high = createItem("high", "priority", 1);
		UUID plain = createItem("plain");
		preferFor(preferred, "asker");
		// Asker first: the higher priority wins; then "other" takes the older item
		// of the same priority, the preferred one, as it would one after the other.
		List<Claims.Ask> asks = List.of(ask("asker", 60), ask("other", 60), ask("third", 60));
		List<Optional<Claims.Claimed>> claimed = batch(asks, null);
		assertThat(claimed).extracting((claim) -> claim.orElseThrow().item().id())
			.containsExactly(high, preferred, plain);
	}

	@Test
	void aWorkerTwiceInABatchGetsItsPreferredItemsInOrderAndAClosedPreferenceCountsForNothing() {
		UUID plain = createItem("plain");
		UUID first = createItem("first preferred");
		UUID second = createItem("second preferred");
		UUID stale = createItem("preferred long ago");
		preferFor(first, "asker");
		preferFor(second, "asker");
		preferFor(stale, "asker");
		this.jdbc.sql("update ready_items set ready_since = ready_since - interval '1 hour' where item_id = :id")
			.param("id", stale)
			.update();
		this.jdbc.sql("update work_items set ready_since = ready_since - interval '1 hour' where id = :id")
			.param("id", stale)
			.update();
		List<Claims.Ask> asks = List.of(ask("asker", 60), ask("asker", 60), ask("asker", 60), ask("asker", 60));
		assertThat(batch(asks, null)).extracting((claim) -> claim.orElseThrow().item().id())
			.containsExactly(first, second, stale, plain);
	}

	@Test
	void aBatchTakesOnlyFromItsQueuesAndPassesOverLockedItems() throws Exception {
		UUID lockedA = createItem("locked a", "queue", "a");
		UUID freeA = createItem("free a", "queue", "a");
		UUID freeB = createItem("free b", "queue", "b", "priority", -1);
		createItem("elsewhere", "queue", "z", "priority", 100);
		try (Connection other = DriverManager.getConnection(TestDatabase.coordinates().jdbcUrl(),
				TestDatabase.coordinates().username(), TestDatabase.coordinates().password())) {
			other.setAutoCommit(false);
			try (Statement statement = other.createStatement()) {
				statement.execute("select 1 from work_items where id = '" + lockedA + "' for update");
			}
			List<Optional<Claims.Claimed>> claimed = batch(List.of(ask("x", 60), ask("y", 60), ask("z", 60)),
					List.of("b", "a"));
			assertThat(claimed).extracting((claim) -> claim.map((c) -> c.item().id()).orElse(null))
				.containsExactly(freeA, freeB, null);
			other.rollback();
		}
		assertThat(status(lockedA)).isEqualTo("ready");
	}

	@Test
	void sixtyFourThreadsClaimTwoThousandItemsEachExactlyOnceWithIncreasingEpochs() {
		UUID parent = createItem("two thousand steps", "queue", "plans");
		assertCreated(decompose(claimFrom("plans", "planner"),
				IntStream.range(0, 1000)
					.mapToObj((i) -> child("k" + i, "queue", "q" + (i % 3), "priority", i % 7))
					.toList()));
		UUID parent2 = createItem("more steps", "queue", "plans");
		assertCreated(decompose(claimFrom("plans", "planner"),
				IntStream.range(0, 1000)
					.mapToObj((i) -> child("m" + i, "queue", "q" + (i % 3), "priority", i % 5))
					.toList()));
		List<Map<String, Object>> filters = List.of(Map.of(), Map.of("queues", List.of("q0", "q1", "q2")),
				Map.of("queues", List.of("q2", "q1", "q0")), Map.of("queues", List.of("q0")),
				Map.of("queues", List.of("q1", "q2")));
		for (long round = 1; round <= 2; round++) {
			List<List<JsonNode>> byWorker = Concurrently.run(64,
					(worker) -> claimUntilEmpty("worker-" + worker, filters.get(worker % filters.size())));
			List<JsonNode> claimed = byWorker.stream().flatMap(List::stream).toList();
			assertThat(claimed).hasSize(2000);
			assertThat(claimed.stream().map((claim) -> itemId(claim)).distinct()).hasSize(2000);
			assertThat(claimed.stream().map((claim) -> leaseId(claim)).distinct()).hasSize(2000);
			long expectedEpoch = round;
			assertThat(claimed).allSatisfy((claim) -> {
				assertThat(epoch(claim)).isEqualTo(expectedEpoch);
				assertThat(claim.path("item").path("status").asString()).isEqualTo("leased");
				assertThat(claim.path("item").path("lease").path("id").asString()).isEqualTo(leaseId(claim).toString());
			});
			assertThat(count("select count(*) from leases")).isEqualTo(2000);
			assertThat(count("select count(*) from ready_items")).isZero();
			// Leases granted by one transaction share its xid: batches did happen.
			assertThat(count("select count(distinct xmin::text) from leases")).isLessThan(2000);
			for (JsonNode claim : claimed) {
				assertOk(release(claim));
			}
		}
		assertThat(this.jdbc.sql("""
				select count(*) from (
				    select item_id, array_agg(epoch order by acquired_at, epoch) epochs from lease_history
				    where item_id in (select id from work_items where parent_id in (:p1, :p2))
				    group by item_id
				) h where epochs = array[1, 2]::bigint[]
				""").param("p1", parent).param("p2", parent2).query(Long.class).single()).isEqualTo(2000);
		assertThat(this.audit.run().inconsistencies()).isEmpty();
	}

	@Test
	void claimsQueuedBehindTheOnesInFlightAreServedTogetherAndTakeTheNextBestItems() throws Exception {
		List<UUID> byRank = new ArrayList<>();
		for (int priority = 30; priority > 0; priority--) {
			byRank.add(createItem("p" + priority, "priority", priority));
		}
		int alone = this.coalescing.maxInFlight();
		List<Api.Response> responses = queuedBehindLock(this.coalescing.maxInFlight(), "leases", alone + 20,
				(i) -> this.api.post("/claims", Map.of("workerId", "worker-" + i)));
		assertThat(responses).allSatisfy((response) -> assertCreated(response));
		// Together the claims took exactly the best items, each a distinct one. Which of
		// the first claims got which of the best two is a race between the slots in
		// flight (each skips the rows the other has locked), so it is not asserted.
		assertThat(responses.stream().map((response) -> itemId(response.body())))
			.containsExactlyInAnyOrderElementsOf(byRank.subList(0, alone + 20));
		// One batch, or two when both freed slots went to queued claims at once.
		assertThat(count("select count(distinct xmin::text) from leases")).isBetween(alone + 1L, alone + 2L);
	}

	@Test
	void thePreferredWorkerGetsItsItemWhenItsClaimIsBatchedWithOthers() throws Exception {
		UUID asked = createItem("asked about", "queue", "w");
		JsonNode claim = claimFrom("w", "asker");
		UUID question = askForAttention(claim, "which way?", true).id();
		List<UUID> older = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			older.add(createItem("older " + i, "queue", "w"));
		}
		assertOk(resolve(question, "left"));
		UUID first = createItem("first in line", "queue", "w", "priority", 5);
		int alone = this.coalescing.maxInFlight();
		int asker = alone + 2;
		List<Api.Response> responses = queuedBehindLock(this.coalescing.maxInFlight(), "leases", alone + 5,
				(i) -> this.api.post("/claims",
						Map.of("workerId", (i == asker) ? "asker" : "worker-" + i, "queues", List.of("w"))));
		assertThat(responses).allSatisfy((response) -> assertCreated(response));
		// The claims in flight take the best items first; which of them took which is a
		// race between their slots (each skips the rows the other has locked).
		assertThat(responses.subList(0, alone).stream().map((response) -> itemId(response.body()))).contains(first);
		assertThat(itemId(responses.get(asker).body())).isEqualTo(asked);
		assertThat(epoch(responses.get(asker).body())).isEqualTo(2);
		// Freed slots may split the queued claims into two batches, which pass
		// each other's locked rows like any concurrent claims; each still takes a
		// distinct older item.
		assertThat(responses.stream().map((response) -> itemId(response.body())).distinct()).hasSize(alone + 5);
		assertThat(responses.subList(1, alone + 5))
			.allSatisfy((response) -> assertThat(itemId(response.body())).isIn(expectedOthers(older, asked)));
	}

	@Test
	void claimsFindingNothingReadyAnswer204AndClaimsOutnumberingItemsGetEachItemOnce() {
		List<Api.Response> none = Concurrently.run(32,
				(i) -> this.api.post("/claims", Map.of("workerId", "worker-" + i)));
		assertThat(none).allSatisfy((response) -> assertThat(response.status()).isEqualTo(204));
		for (int i = 0; i < 10; i++) {
			createItem("scarce " + i);
		}
		List<Api.Response> some = Concurrently.run(48,
				(i) -> this.api.post("/claims", Map.of("workerId", "worker-" + i)));
		assertThat(some.stream().filter((response) -> response.status() == 201)).hasSize(10);
		assertThat(some.stream().filter((response) -> response.status() == 204)).hasSize(38);
		assertThat(some.stream()
			.filter((response) -> response.status() == 201)
			.map((response) -> itemId(response.body()))
			.distinct()).hasSize(10);
	}

	private static List<UUID> expectedOthers(List<UUID> older, UUID asked) {
		List<UUID> others = new ArrayList<>(older);
		others.add(asked);
		return others;
	}

	private List<Optional<Claims.Claimed>> batch(List<Claims.Ask> asks, List<String> queues) {
		return this.transactions.inTransaction(() -> this.claims.claimBatch(asks, queues, WINDOW));
	}

	private static Claims.Ask ask(String workerId, int leaseSeconds) {
		return new Claims.Ask(Uuid7.next(), workerId, leaseSeconds);
	}

	private static Map<String, UUID> byWorker(List<Claims.Ask> asks, List<Optional<Claims.Claimed>> claimed) {
		Map<String, UUID> got = new HashMap<>();
		for (int i = 0; i < asks.size(); i++) {
			got.put(asks.get(i).workerId(), claimed.get(i).orElseThrow().item().id());
		}
		return got;
	}

	/**
	 * As if the item had become ready after a question by this worker (the claim queue
	 * row is all the claim reads).
	 */
	private void preferFor(UUID item, String workerId) {
		this.jdbc.sql("update ready_items set preferred_worker_id = :worker where item_id = :id")
			.param("worker", workerId)
			.param("id", item)
			.update();
	}

}
