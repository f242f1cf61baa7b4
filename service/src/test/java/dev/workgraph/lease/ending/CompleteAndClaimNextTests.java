package dev.workgraph.lease.ending;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code claimNext} on {@code POST /leases/{id}/complete}: the completion first, then,
 * once it is committed, a claim for the lease's worker answered in the same response. A
 * rejected completion claims nothing; a bad {@code claimNext} writes nothing; a claim
 * that fails after the commit leaves the completion standing.
 */
class CompleteAndClaimNextTests extends LeaseTestSupport {

	@Test
	void theNextItemComesWithTheCompletionsAnswer() {
		createItem("first", "queue", "chain", "priority", 9);
		UUID second = createItem("second", "queue", "chain", "priority", 5);
		createItem("elsewhere, but more urgent", "queue", "other", "priority", 50);
		JsonNode first = claimFrom("chain", "chainer");

		Api.Response chained = completeAndClaim(first, Map.of("n", 1), Map.of("queues", List.of("chain")));
		assertOk(chained);
		JsonNode answer = chained.body();
		assertThat(answer.path("lease").path("id").asString()).isEqualTo(leaseId(first).toString());
		assertThat(answer.path("lease").path("outcome").asString()).isEqualTo("completed");
		assertThat(answer.path("item").path("status").asString()).isEqualTo("completed");
		assertThat(answer.path("item").path("result").path("n").asInt()).isEqualTo(1);
		JsonNode next = answer.path("next");
		assertThat(next.path("item").path("id").asString()).isEqualTo(second.toString());
		assertThat(next.path("item").path("status").asString()).isEqualTo("leased");
		assertThat(next.path("lease").path("workerId").asString()).isEqualTo("chainer");
		assertThat(next.path("lease").path("active").asBoolean()).isTrue();
		assertThat(next.path("lease").path("epoch").asLong()).isEqualTo(1);
		assertThat(answer.has("nextProblem")).isFalse();
		assertThat(lease(leaseId(next)).path("active").asBoolean()).isTrue();

		// Nothing ready in those queues: next is there, and null; the completion stands.
		Api.Response last = completeAndClaim(next, null, Map.of("queues", List.of("chain")));
		assertOk(last);
		assertThat(last.body().has("next")).isTrue();
		assertThat(last.body().path("next").isNull()).isTrue();
		assertThat(last.body().has("nextProblem")).isFalse();
		assertThat(status(second)).isEqualTo("completed");
		assertThat(count("select count(*) from leases")).isZero();
	}

	@Test
	void withoutClaimNextTheAnswerIsTheLeaseAndItemAlone() {
		createItem("plain");
		createItem("left ready");
		Api.Response completed = complete(claim("plain-worker"), null);
		assertOk(completed);
		assertThat(completed.body().propertyNames()).containsExactlyInAnyOrder("lease", "item");
		assertThat(count("select count(*) from ready_items")).isEqualTo(1);
	}

	@Test
	void anEmptyClaimNextClaimsFromEveryQueueWithTheLeaseLengthAsked() {
		createItem("first", "queue", "a", "priority", 1);
		UUID best = createItem("best anywhere", "queue", "b", "priority", 7);
		JsonNode first = claimFrom("a", "roamer");

		JsonNode next = completeAndClaim(first, null, Map.of()).body().path("next");
		assertThat(next.path("item").path("id").asString()).isEqualTo(best.toString());
		assertThat(Duration.between(instant(next.path("lease").path("acquiredAt")),
				instant(next.path("lease").path("expiresAt"))))
			.as("the configured default")
			.isEqualTo(Duration.ofSeconds(300));

		UUID third = createItem("third", "queue", "c");
		JsonNode shortLease = completeAndClaim(next, null, Map.of("leaseSeconds", 30)).body().path("next");
		assertThat(shortLease.path("item").path("id").asString()).isEqualTo(third.toString());
		assertThat(Duration.between(instant(shortLease.path("lease").path("acquiredAt")),
				instant(shortLease.path("lease").path("expiresAt"))))
			.isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void aRejectedCompletionClaimsNothing() {
		createItem("held");
		createItem("would be next");
		JsonNode held = claim("holder");
		Map<String, Object> before = fingerprint();

		Map<String, Object> wrongEpoch = new LinkedHashMap<>();
		wrongEpoch.put("epoch", epoch(held) + 1);
		wrongEpoch.put("claimNext", Map.of());
		assertProblem(this.api.post("/leases/" + leaseId(held) + "/complete", wrongEpoch), 409, "epoch_mismatch");
		assertProblem(
				this.api.post("/leases/" + UUID.randomUUID() + "/complete", Map.of("epoch", 1, "claimNext", Map.of())),
				404, "not_found");
		assertThat(fingerprint()).isEqualTo(before);

		assertOk(complete(held, null));
		assertProblem(completeAndClaim(held, null, Map.of()), 409, "lease_ended");
		assertThat(count("select count(*) from leases")).isZero();
		assertThat(count("select count(*) from ready_items")).isEqualTo(1);
	}

	@Test
	void anExpiredLeaseClaimsNothing() {
		createItem("expiring");
		createItem("would be next");
		JsonNode held = claim("sleeper");
		expireLease(leaseId(held));
		assertProblem(completeAndClaim(held, null, Map.of()), 409, "lease_expired");
		assertThat(count("select count(*) from ready_items")).isEqualTo(1);
		assertThat(count("select count(*) from leases where worker_id = 'sleeper'")).isEqualTo(1);
	}

	@Test
	void aBadClaimNextWritesNothing() {
		createItem("held");
		createItem("would be next");
		JsonNode held = claim("careful");
		Map<String, Object> before = fingerprint();
		List<Object> bad = List.of(Map.of("leaseSeconds", 0), Map.of("leaseSeconds", 86_401),
				Map.of("queues", List.of()), Map.of("queues", List.of("no spaces allowed")),
				Map.of("workerId", "someone-else"), Map.of("waitSeconds", 5), "all", 1, List.of());
		for (Object claimNext : bad) {
			Api.Response rejected = completeAndClaim(held, null, claimNext);
			assertThat(rejected.status()).as("%s: %s", claimNext, rejected).isBetween(400, 422);
			assertThat(rejected.code()).as("%s: %s", claimNext, rejected).isEqualTo("validation_failed");
		}
		assertThat(fingerprint()).isEqualTo(before);
		assertThat(lease(leaseId(held)).path("active").asBoolean()).isTrue();
	}

	/**
	 * A claim that fails (here: always loses a lock race) never undoes the completion:
	 * the answer still says that the item is completed, and says why nothing came next;
	 * the item the failed claim would have taken stays ready.
	 */
	@Test
	void aClaimThatFailsLeavesTheCompletionStanding() {
		refuseLeasesOf("poisoned", "40001");
		UUID done = createItem("fine", "priority", 5);
		UUID poisoned = createItem("poisoned");
		JsonNode held = claim("unlucky");
		assertThat(itemId(held)).isEqualTo(done);

		Api.Response answer = completeAndClaim(held, Map.of("ok", true), Map.of());
		assertOk(answer);
		assertThat(answer.body().path("item").path("status").asString()).isEqualTo("completed");
		assertThat(answer.body().path("next").isNull()).isTrue();
		JsonNode problem = answer.body().path("nextProblem");
		assertThat(problem.path("status").asInt()).as(answer.toString()).isEqualTo(503);
		assertThat(problem.path("code").asString()).isEqualTo("service_unavailable");
		assertThat(status(done)).isEqualTo("completed");
		assertThat(status(poisoned)).isEqualTo("ready");
		assertThat(count("select count(*) from ready_items")).isEqualTo(1);
	}

	/**
	 * Workers that go from item to item only through {@code claimNext} race each other
	 * over one queue: every item is completed exactly once, by the worker that held it,
	 * and nothing stays leased.
	 */
	@Test
	void workersChainingConcurrentlyCompleteEveryItemOnce() {
		int items = 240;
		int workers = 12;
		for (int i = 0; i < items; i++) {
			createItem("chained " + i, "queue", "relay");
		}
		List<List<UUID>> completedBy = Concurrently.run(workers, (w) -> {
			List<UUID> completed = new ArrayList<>();
			Api.Response claimed = this.api.post("/claims",
					Map.of("workerId", "relay-" + w, "queues", List.of("relay")));
			JsonNode held = (claimed.status() == 201) ? claimed.body() : null;
			while (held != null) {
				assertThat(held.path("lease").path("workerId").asString()).isEqualTo("relay-" + w);
				Api.Response answer = completeAndClaim(held, Map.of("by", w), Map.of("queues", List.of("relay")));
				assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
				assertThat(answer.body().has("nextProblem")).as(answer.toString()).isFalse();
				completed.add(itemId(held));
				JsonNode next = answer.body().path("next");
				held = next.isNull() ? null : next;
			}
			return completed;
		});
		List<UUID> all = completedBy.stream().flatMap(List::stream).toList();
		Set<UUID> distinct = new HashSet<>(all);
		assertThat(all).hasSize(items);
		assertThat(distinct).hasSize(items);
		assertThat(count("select count(*) from work_items where queue = 'relay' and status = 'completed'"))
			.isEqualTo(items);
		assertThat(count("select count(*) from lease_history where outcome = 'completed'")).isEqualTo(items);
		assertThat(count("select count(*) from leases")).isZero();
		assertThat(count("select count(*) from ready_items")).isZero();
		// Each item's result names the worker whose lease completed it.
		for (int w = 0; w < workers; w++) {
			for (UUID item : completedBy.get(w)) {
				assertThat(count("select count(*) from lease_history h join work_items i on i.id = h.item_id "
						+ "where h.item_id = '" + item + "' and h.worker_id = 'relay-" + w
						+ "' and i.result ->> 'by' = '" + w + "'"))
					.isEqualTo(1);
			}
		}
	}

	private Api.Response completeAndClaim(JsonNode claim, Object result, Object claimNext) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("epoch", epoch(claim));
		body.put("result", result);
		body.put("claimNext", claimNext);
		return this.api.post("/leases/" + leaseId(claim) + "/complete", body);
	}

}
