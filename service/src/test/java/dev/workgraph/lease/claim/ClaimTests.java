package dev.workgraph.lease.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * {@code POST /claims}: which item a claim gets (priority, then longest ready, within the
 * given queues), what it answers, and which requests it refuses.
 */
class ClaimTests extends LeaseTestSupport {

	@Autowired
	private DataSource dataSource;

	@Test
	void claimAnswersWithTheLeaseAndTheFullItemView() {
		UUID dependency = createItem("dependency");
		JsonNode dependencyClaim = claim("worker-0");
		assertOk(complete(dependencyClaim, Map.of("ok", true)));
		UUID id = createItem("the work", "priority", 3, "queue", "builds", "metadata", Map.of("repo", "x"), "dependsOn",
				List.of(dependency));
		Api.Response claimed = this.api.post("/claims", Map.of("workerId", "worker-1"));
		assertCreated(claimed);
		JsonNode lease = claimed.body().path("lease");
		JsonNode item = claimed.body().path("item");
		assertThat(lease.path("itemId").asString()).isEqualTo(id.toString());
		assertThat(lease.path("workerId").asString()).isEqualTo("worker-1");
		assertThat(lease.path("epoch").asLong()).isEqualTo(1);
		assertThat(lease.path("active").asBoolean()).isTrue();
		assertThat(lease.path("outcome").isNull()).isTrue();
		assertThat(lease.path("endedAt").isNull()).isTrue();
		assertThat(Duration.between(instant(lease.path("acquiredAt")), instant(lease.path("expiresAt"))))
			.isEqualTo(Duration.ofSeconds(300));
		assertThat(item.path("id").asString()).isEqualTo(id.toString());
		assertThat(item.path("title").asString()).isEqualTo("the work");
		assertThat(item.path("status").asString()).isEqualTo("leased");
		assertThat(item.path("epoch").asLong()).isEqualTo(1);
		assertThat(item.path("priority").asInt()).isEqualTo(3);
		assertThat(item.path("queue").asString()).isEqualTo("builds");
		assertThat(item.path("metadata").path("repo").asString()).isEqualTo("x");
		assertThat(item.path("readySince").isNull()).isTrue();
		assertThat(item.path("lease").path("id").asString()).isEqualTo(lease.path("id").asString());
		assertThat(item.path("blockers").path("unmetDependencies").asInt()).isZero();
		assertThat(item.path("blockers").path("openChildren").asInt()).isZero();
		assertThat(item.path("blockers").path("openAttentionRequests").asInt()).isZero();
		assertThat(item.path("dependsOn").get(0).path("id").asString()).isEqualTo(dependency.toString());
		assertThat(item.path("dependsOn").get(0).path("status").asString()).isEqualTo("completed");
		assertThat(item.path("children").isArray()).isTrue();
		assertThat(item.path("attentionRequests").isArray()).isTrue();
		assertThat(item(id).path("status").asString()).isEqualTo("leased");
	}

	@Test
	void anEmptyClaimSaysWhenToComeBack() {
		Api.Response empty = this.api.post("/claims", Map.of("workerId", "idle"));
		assertThat(empty.status()).isEqualTo(204);
		assertThat(empty.raw().body()).isEmpty();
		assertThat(empty.header("Retry-After")).isEqualTo("1");
		createItem("work");
		Api.Response granted = this.api.post("/claims", Map.of("workerId", "idle"));
		assertThat(granted.status()).isEqualTo(201);
		assertThat(granted.header("Retry-After")).isNull();
	}

	@Test
	void highestPriorityIsClaimedFirstThenTheLongestReady() {
		UUID lowOld = createItem("low, oldest", "priority", -5);
		UUID normalOld = createItem("normal, older");
		UUID highNew = createItem("high, newest but one", "priority", 10);
		UUID normalNew = createItem("normal, newer");
		UUID highNewest = createItem("high, newest", "priority", 10);
		UUID lowest = createItem("lowest", "priority", -1000);
		UUID highest = createItem("highest", "priority", 1000);
		assertThat(claimAll("worker-1")).containsExactly(highest, highNew, highNewest, normalOld, normalNew, lowOld,
				lowest);
	}

	@Test
	void itemThatBecomesReadyAgainQueuesBehindItemsReadyLonger() {
		UUID first = createItem("first");
		UUID second = createItem("second");
		JsonNode claim = claim("worker-1");
		assertThat(itemId(claim)).isEqualTo(first);
		Instant readyBefore = instant(claim.path("item").path("createdAt"));
		assertOk(release(claim));
		JsonNode released = item(first);
		assertThat(instant(released.path("readySince"))).isAfter(readyBefore);
		assertThat(claimAll("worker-1")).containsExactly(second, first);
	}

	@Test
	void childrenOfOneDecomposeShareReadySinceAndAreClaimedInRequestOrder() {
		createItem("parent", "queue", "plans");
		JsonNode parent = claimFrom("plans", "planner");
		List<String> keys = List.of("zulu", "alpha", "mike", "bravo", "yankee", "charlie", "x-ray", "delta");
		List<Map<String, Object>> children = keys.stream().map((key) -> child(key, "queue", "steps")).toList();
		Api.Response decomposed = decompose(parent, children);
		assertCreated(decomposed);
		List<UUID> childIds = ids(decomposed.body().path("children"));
		List<Instant> readySince = new ArrayList<>();
		decomposed.body().path("children").forEach((child) -> readySince.add(instant(child.path("readySince"))));
		assertThat(readySince).as("created in one transaction").containsOnly(readySince.getFirst());
		List<UUID> claimed = new ArrayList<>();
		for (int i = 0; i < keys.size(); i++) {
			JsonNode claim = claimFrom("steps", "worker-" + i);
			assertThat(claim.path("item").path("title").asString()).isEqualTo("child " + keys.get(i));
			claimed.add(itemId(claim));
		}
		assertThat(claimed).isEqualTo(childIds);
	}

	@Test
	void queuesRestrictTheClaimToTheNamedQueues() {
		UUID a1 = createItem("a1", "queue", "alpha");
		UUID b1 = createItem("b1", "queue", "beta", "priority", 1);
		UUID c1 = createItem("c1", "queue", "gamma", "priority", 5);
		UUID a2 = createItem("a2", "queue", "alpha", "priority", 2);
		UUID b2 = createItem("b2", "queue", "beta", "priority", 1);
		assertThat(itemId(claim(Map.of("workerId", "w", "queues", List.of("beta"))))).isEqualTo(b1);
		// Across several queues the usual order holds: priority first, then longest
		// ready.
		assertThat(itemId(claim(Map.of("workerId", "w", "queues", List.of("alpha", "beta"))))).isEqualTo(a2);
		assertThat(itemId(claim(Map.of("workerId", "w", "queues", List.of("beta", "alpha"))))).isEqualTo(b2);
		assertThat(itemId(claim(Map.of("workerId", "w", "queues", List.of("alpha", "beta", "alpha"))))).isEqualTo(a1);
		nothingToClaim(Map.of("workerId", "w", "queues", List.of("alpha", "beta")));
		nothingToClaim(Map.of("workerId", "w", "queues", List.of("no-such-queue")));
		assertThat(itemId(claim(Map.of("workerId", "w")))).isEqualTo(c1);
	}

	@Test
	void emptyQueueAnswers204AndWritesNothing() {
		UUID blocked = createItem("blocked", "dependsOn", List.of(createItem("dependency", "queue", "other")));
		claimFrom("other", "w");
		assertThat(status(blocked)).isEqualTo("blocked");
		Map<String, Object> before = fingerprint();
		nothingToClaim();
		nothingToClaim(Map.of("workerId", "w", "queues", List.of("default")));
		nothingToClaim(Map.of("workerId", "w", "leaseSeconds", 10));
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void epochsOfAnItemIncreaseStrictlyAcrossItsLeases() {
		UUID id = createItem("recurring");
		List<Long> epochs = new ArrayList<>();
		for (int i = 1; i <= 6; i++) {
			JsonNode claim = claim("worker-" + (i % 2));
			assertThat(itemId(claim)).isEqualTo(id);
			epochs.add(epoch(claim));
			if (i == 3) {
				// Progress now and then, or the no-progress guard holds the item.
				assertThat(this.api
					.post("/leases/" + leaseId(claim) + "/checkpoints",
							Map.of("epoch", epoch(claim), "data", Map.of("lease", i)))
					.status()).isEqualTo(201);
			}
			if (i % 3 == 0) {
				expireLease(leaseId(claim));
				assertThat(reap()).isEqualTo(1);
			}
			else {
				assertOk(release(claim));
			}
		}
		assertThat(epochs).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
		assertThat(leasesOf(id)).extracting((lease) -> lease.path("epoch").asLong())
			.containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
		assertThat(item(id).path("epoch").asLong()).isEqualTo(6);
	}

	@Test
	void leaseSecondsDefaultsTo300AndAcceptsOneTo86400() {
		createItem("a");
		createItem("b");
		createItem("c");
		assertThat(leaseLength(claim("w"))).isEqualTo(Duration.ofSeconds(300));
		assertThat(leaseLength(claim("w", 1))).isEqualTo(Duration.ofSeconds(1));
		assertThat(leaseLength(claim("w", 86_400))).isEqualTo(Duration.ofSeconds(86_400));
	}

	@ParameterizedTest
	@ValueSource(ints = { 0, -1, 86_401, Integer.MAX_VALUE })
	void leaseSecondsOutOfRangeIsRejectedAndNothingIsClaimed(int leaseSeconds) {
		createItem("a");
		Map<String, Object> before = fingerprint();
		Api.Response response = this.api.post("/claims", Map.of("workerId", "w", "leaseSeconds", leaseSeconds));
		assertProblem(response, 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@ParameterizedTest
	@ValueSource(strings = { "{}", "{\"workerId\": \"\"}", "{\"workerId\": null}", "{\"workerId\": 7}",
			"{\"workerId\": true}", "{\"workerId\": 1.5}", "{\"workerId\": \"w\", \"queues\": []}",
			"{\"workerId\": \"w\", \"queues\": [\"Not A Queue\"]}", "{\"workerId\": \"w\", \"queues\": [null]}",
			"{\"workerId\": \"w\", \"queues\": \"default\"}", "{\"workerId\": \"w\", \"leaseSeconds\": 1.5}",
			"{\"workerId\": \"w\", \"leaseSeconds\": \"60\"}", "{\"workerId\": \"w\", \"leaseSeconds\": 99999999999}",
			"{\"workerId\": \"w\", \"priority\": 1}", "{\"workerId\": \"w\\u0000\"}" })
	void invalidClaimRequestsAreRejectedAndNothingIsClaimed(String body) {
		createItem("a");
		Map<String, Object> before = fingerprint();
		Api.Response response = this.api.post("/claims", body);
		assertProblem(response, 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void workerIdMayBe200CharactersButNot201() {
		createItem("a");
		assertCreated(this.api.post("/claims", Map.of("workerId", "w".repeat(200))));
		createItem("b");
		assertProblem(this.api.post("/claims", Map.of("workerId", "w".repeat(201))), 422, "validation_failed");
	}

	@Test
	void onlyReadyItemsAreClaimed() {
		UUID dependency = createItem("dependency", "queue", "deps");
		UUID dependent = createItem("dependent", "dependsOn", List.of(dependency));
		UUID parent = createItem("parent");
		UUID child = createItem("child", "parentId", parent, "queue", "kids");
		UUID done = createItem("done", "queue", "done");
		assertOk(complete(claimFrom("done", "w")));
		UUID cancelled = createItem("cancelled");
		assertOk(operatorCancel(cancelled, "not needed"));
		JsonNode held = claimFrom("deps", "holder");
		// Only the child is ready: the dependency is leased, the dependent and the parent
		// are blocked, the rest are terminal.
		assertThat(claimAll("w")).containsExactly(child);
		assertThat(status(dependent)).isEqualTo("blocked");
		assertThat(status(parent)).isEqualTo("blocked");
		assertThat(status(done)).isEqualTo("completed");
		assertThat(itemId(held)).isEqualTo(dependency);
	}

	@Test
	void claimPassesOverAnItemLockedByAnotherTransactionInsteadOfWaiting() throws Exception {
		UUID locked = createItem("locked by someone else", "priority", 5);
		UUID next = createItem("next best");
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			try (PreparedStatement lock = connection
				.prepareStatement("select 1 from work_items where id = ? for no key update")) {
				lock.setObject(1, locked);
				lock.executeQuery().close();
			}
			JsonNode claim = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> claim("worker-1"));
			assertThat(itemId(claim)).isEqualTo(next);
			connection.rollback();
		}
		assertThat(itemId(claim("worker-2"))).isEqualTo(locked);
	}

	@Test
	void timestampsAreUtcWithAtMostMicroseconds() {
		createItem("a");
		JsonNode claim = claim("worker-1");
		for (JsonNode timestamp : List.of(claim.path("lease").path("acquiredAt"), claim.path("lease").path("expiresAt"),
				claim.path("item").path("createdAt"), claim.path("item").path("updatedAt"))) {
			assertThat(timestamp.asString()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?Z");
		}
	}

	private List<UUID> claimAll(String workerId) {
		return claimUntilEmpty(Map.of("workerId", workerId)).stream().map(ServiceTest::itemId).toList();
	}

	private static Duration leaseLength(JsonNode claim) {
		JsonNode lease = claim.path("lease");
		return Duration.between(instant(lease.path("acquiredAt")), instant(lease.path("expiresAt")));
	}

}
