package dev.workgraph.lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Handoff (docs/http-api.md, "Hand off"): the lease ends {@code handed_off} and the named
 * successor holds the item with the next epoch, in one transaction. The stale cases are
 * in {@link FencingTests} (handoff is one of its mutations).
 */
class HandoffTests extends LeaseTestSupport {

	@Test
	void theSuccessorHoldsTheItemWithTheNextEpoch() {
		UUID itemId = createItem("hand me on");
		JsonNode claim = claim("worker-1");
		Api.Response handed = this.api.post("/leases/" + leaseId(claim) + "/handoff",
				Map.of("epoch", 1, "toWorkerId", "reviewer", "reason", "needs a reviewer", "leaseSeconds", 900));
		assertCreated(handed);
		JsonNode ended = handed.body().path("ended");
		JsonNode lease = handed.body().path("lease");
		assertThat(ended.path("id").asString()).isEqualTo(leaseId(claim).toString());
		assertThat(ended.path("outcome").asString()).isEqualTo("handed_off");
		assertThat(ended.path("reason").asString()).isEqualTo("needs a reviewer");
		assertThat(ended.path("active").asBoolean()).isFalse();
		assertThat(lease.path("workerId").asString()).isEqualTo("reviewer");
		assertThat(lease.path("epoch").asLong()).isEqualTo(2);
		assertThat(lease.path("active").asBoolean()).isTrue();
		assertThat(lease.path("fenceToken").asString()).isNotEmpty();
		assertThat(instant(lease.path("acquiredAt"))).isAfterOrEqualTo(instant(ended.path("endedAt")));
		assertThat(Duration.between(instant(lease.path("acquiredAt")), instant(lease.path("expiresAt"))))
			.isEqualTo(Duration.ofSeconds(900));
		JsonNode item = handed.body().path("item");
		assertThat(item.path("status").asString()).isEqualTo("leased");
		assertThat(item.path("epoch").asLong()).isEqualTo(2);
		assertThat(item.path("lease").path("id").asString()).isEqualTo(lease.path("id").asString());
		assertThat(leasesOf(itemId)).extracting((l) -> l.path("outcome").asString(null))
			.containsExactly("handed_off", null);
		// Nobody else can claim it; the successor works it like any holder.
		nothingToClaim();
		UUID successor = uuid(lease.path("id"));
		assertOk(this.api.post("/leases/" + successor + "/renew", Map.of("epoch", 2, "leaseSeconds", 60)));
		assertOk(this.api.post("/leases/" + successor + "/complete", Map.of("epoch", 2)));
		assertThat(status(itemId)).isEqualTo("completed");
	}

	@Test
	void theSuccessorsLeaseHasTheDefaultLengthWhenNoneIsGiven() {
		createItem("default length");
		Api.Response handed = handOff(claim("worker-1"), "worker-2");
		assertCreated(handed);
		JsonNode lease = handed.body().path("lease");
		assertThat(Duration.between(instant(lease.path("acquiredAt")), instant(lease.path("expiresAt"))))
			.isEqualTo(Duration.ofSeconds(300));
	}

	@Test
	void aHandedOffLeaseThatExpiresReturnsTheItemLikeAnyOther() {
		UUID itemId = createItem("expires after handoff");
		Api.Response handed = handOff(claim("worker-1"), "worker-2");
		expireLease(uuid(handed.body().path("lease").path("id")));
		assertThat(reap()).isEqualTo(1);
		JsonNode next = claim("worker-3");
		assertThat(itemId(next)).isEqualTo(itemId);
		assertThat(epoch(next)).isEqualTo(3);
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"epoch\":1}", "{\"epoch\":1,\"toWorkerId\":\"\"}", "{\"epoch\":1,\"toWorkerId\":null}",
			"{\"epoch\":1,\"toWorkerId\":7}", "{\"epoch\":1,\"toWorkerId\":\"a\\u0000b\"}",
			"{\"epoch\":1,\"toWorkerId\":\"x\",\"leaseSeconds\":0}",
			"{\"epoch\":1,\"toWorkerId\":\"x\",\"leaseSeconds\":86401}", "{\"toWorkerId\":\"x\"}",
			"{\"epoch\":1,\"toWorkerId\":\"x\",\"unknown\":1}" })
	void aBadHandoffIsRefusedAndWritesNothing(String body) {
		createItem("hostile");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		Api.Response response = this.api.post("/leases/" + leaseId(claim) + "/handoff", body);
		assertThat(response.status()).as(response.toString()).isIn(400, 422);
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void aWorkerIdTooLongIsRefused() {
		createItem("long name");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		assertProblem(handOff(claim, "w".repeat(201)), 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
		assertCreated(handOff(claim, "w".repeat(200)));
	}

	/**
	 * Handoffs race claims, expiries forced at random moments and the reaper (and the
	 * crash-loop guard's answers), thousands of times. Afterwards, for every item: its
	 * epochs are 1, 2, … with no gap, and every lease that ended {@code handed_off} at
	 * epoch e was followed by a lease of the successor it named (a worker called
	 * {@code heir-<e+1>}) at e + 1, granted no earlier than the end: never a thief, never
	 * anyone in between.
	 */
	@Test
	void handoffsRacingClaimsAndTheReaperNeverGrantAnyoneButTheSuccessor() {
		int items = 16;
		List<UUID> itemIds = new ArrayList<>();
		for (int i = 0; i < items; i++) {
			itemIds.add(createItem("relay " + i));
		}
		claimUntilEmpty("first", Map.of("leaseSeconds", 60));
		int wanted = 2000;
		long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
		AtomicInteger handoffs = new AtomicInteger();
		AtomicInteger refused = new AtomicInteger();
		AtomicBoolean stop = new AtomicBoolean();
		Concurrently.run(8, (thread) -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			while (!stop.get()) {
				if (handoffs.get() >= wanted || System.nanoTime() > deadline) {
					stop.set(true);
					break;
				}
				// The reaper, a thief and the expiries pause between turns: an expiry
				// every
				// few milliseconds would leave no lease alive long enough to hand off.
				switch (thread) {
					case 0 -> {
						reap();
						answerTheCrashLoopGuard();
						pause(5);
					}
					case 1 -> {
						this.api.post("/claims", Map.of("workerId", "thief", "leaseSeconds", 60));
						pause(5);
					}
					case 2 -> {
						this.jdbc.sql(
								"update leases set expires_at = greatest(now(), acquired_at + interval '1 millisecond') "
										+ "where id = (select id from leases order by random() limit 1)")
							.update();
						pause(random.nextInt(10, 40));
					}
					default -> {
						if (handOffOne(itemIds.get(random.nextInt(items)))) {
							handoffs.incrementAndGet();
						}
						else {
							refused.incrementAndGet();
						}
					}
				}
			}
			return null;
		});
		reap();
		assertThat(handoffs.get()).as("handoffs that succeeded (%d refused)", refused.get()).isGreaterThan(500);
		assertThat(count("select count(*) from lease_history where outcome = 'handed_off'")).isEqualTo(handoffs.get());
		// The races happened: leases expired under the handoffs, and the thief got items.
		assertThat(count("select count(*) from lease_history where outcome = 'expired'")).isPositive();
		assertThat(count("select count(*) from lease_history where worker_id = 'thief'")
				+ count("select count(*) from leases where worker_id = 'thief'"))
			.isPositive();
		// No gap: an item's leases carry exactly the epochs 1 … its epoch.
		assertThat(count("""
				select count(*) from work_items w
				where w.epoch <> (select count(*) from (
				        select epoch from leases where item_id = w.id
				        union all
				        select epoch from lease_history where item_id = w.id) e)
				""")).isZero();
		// Every handoff was followed by its named successor, and by nobody else first.
		assertThat(count("""
				select count(*) from lease_history h
				left join (select item_id, epoch, worker_id, acquired_at from leases
				           union all
				           select item_id, epoch, worker_id, acquired_at from lease_history) n
				    on n.item_id = h.item_id and n.epoch = h.epoch + 1
				where h.outcome = 'handed_off'
				    and (n.item_id is null or n.worker_id <> 'heir-' || n.epoch or n.acquired_at < h.ended_at)
				""")).isZero();
	}

	/**
	 * Lets items the crash-loop guard held (three expiries in a row) run again, so that
	 * the race goes on over every item.
	 */
	private void answerTheCrashLoopGuard() {
		for (JsonNode request : this.api.get("/attention-requests?status=open").body().path("attentionRequests")) {
			this.api.post("/attention-requests/" + request.path("id").asString() + "/resolve",
					Map.of("resolution", "run it again", "resolvedBy", "the test"));
		}
	}

	private static void pause(int millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Hands the item's current lease, whatever it is, to {@code heir-<epoch + 1>}; false
	 * when it lost a race (the lease ended or expired meanwhile).
	 */
	private boolean handOffOne(UUID itemId) {
		JsonNode lease = this.api.get("/items/" + itemId).body().path("lease");
		if (lease.isNull() || lease.isMissingNode()) {
			return false;
		}
		long epoch = lease.path("epoch").asLong();
		Api.Response handed = this.api.post("/leases/" + lease.path("id").asString() + "/handoff",
				Map.of("epoch", epoch, "toWorkerId", "heir-" + (epoch + 1), "leaseSeconds", 60));
		if (handed.status() == 409) {
			assertThat(handed.code()).isIn("lease_expired", "lease_ended", "epoch_mismatch");
			return false;
		}
		assertThat(handed.status()).as(handed.toString()).isEqualTo(201);
		JsonNode granted = handed.body().path("lease");
		assertThat(granted.path("epoch").asLong()).isEqualTo(epoch + 1);
		assertThat(granted.path("workerId").asString()).isEqualTo("heir-" + (epoch + 1));
		return true;
	}

}
