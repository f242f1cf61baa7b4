package dev.workgraph.lease.expiry;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Expiry (docs/http-api.md, "Expiry" and "Expired but not yet recorded"): a lease is dead
 * at expiresAt, its item stays leased until the reaper records the expiry at expiresAt,
 * and then the item returns to circulation — unless it keeps killing its workers, when
 * the crash-loop guard holds it with a question.
 */
class ExpiryTests extends LeaseTestSupport {

	@Autowired
	private DataSource dataSource;

	@Test
	void expiredButUnrecordedLeaseKeepsItsItemLeasedAndUnclaimable() {
		UUID id = createItem("stalls");
		JsonNode claim = claim("worker-1");
		expireLease(leaseId(claim));
		JsonNode item = item(id);
		assertThat(item.path("status").asString()).isEqualTo("leased");
		assertThat(item.path("readySince").isNull()).isTrue();
		assertThat(item.path("lease").path("active").asBoolean()).isFalse();
		JsonNode lease = lease(leaseId(claim));
		assertThat(lease.path("active").asBoolean()).isFalse();
		assertThat(lease.path("outcome").isNull()).isTrue();
		assertThat(lease.path("endedAt").isNull()).isTrue();
		Map<String, Object> before = fingerprint();
		nothingToClaim(Map.of("workerId", "worker-2"));
		nothingToClaim(Map.of("workerId", "worker-1"));
		assertThat(fingerprint()).isEqualTo(before);
	}

	/**
	 * The reaper's transactions run in parallel during a burst (two by default), each
	 * batch after batch: every expiry is still recorded once, counted once, and its item
	 * queued once.
	 */
	@Test
	void aBurstOfExpiriesIsRecordedExactlyOnceByTheParallelTransactions() {
		leasedItems(3_500, "- interval '1 second'");
		assertThat(this.reaper.reapExpired()).isEqualTo(3_500);
		assertThat(this.jdbc.sql("select count(distinct item_id) from lease_history where outcome = 'expired'")
			.query(Long.class)
			.single()).isEqualTo(3_500);
		assertThat(
				this.jdbc.sql("select count(*) from work_items where status = 'ready' and consecutive_expirations = 1")
					.query(Long.class)
					.single())
			.isEqualTo(3_500);
		assertThat(this.jdbc.sql("select count(*) from ready_items").query(Long.class).single()).isEqualTo(3_500);
		assertThat(this.jdbc.sql("select count(*) from leases").query(Long.class).single()).isZero();
	}

	@Test
	void reaperRecordsTheExpiryAtExpiresAtAndTheNextClaimFencesTheOldHolder() {
		UUID id = createItem("stalls");
		UUID other = createItem("healthy");
		JsonNode claim = claim("worker-1");
		JsonNode healthy = claim("worker-9");
		assertThat(itemId(healthy)).isEqualTo(other);
		expireLease(leaseId(claim));
		Instant beforeReap = databaseNow();
		assertThat(reap()).isEqualTo(1);
		assertThat(reap()).isZero();
		JsonNode lease = lease(leaseId(claim));
		assertThat(lease.path("outcome").asString()).isEqualTo("expired");
		assertThat(lease.path("endedAt").asString()).isEqualTo(lease.path("expiresAt").asString());
		assertThat(lease.path("reason").isNull()).isTrue();
		JsonNode item = item(id);
		assertThat(item.path("status").asString()).isEqualTo("ready");
		assertThat(instant(item.path("readySince"))).isAfterOrEqualTo(beforeReap);
		assertThat(item.path("lease").isNull()).isTrue();
		// The healthy lease was left alone.
		assertThat(lease(leaseId(healthy)).path("active").asBoolean()).isTrue();
		assertThat(status(other)).isEqualTo("leased");

		JsonNode next = claim("worker-2");
		assertThat(itemId(next)).isEqualTo(id);
		assertThat(epoch(next)).isEqualTo(2);
		Api.Response stale = complete(claim);
		assertProblem(stale, 409, "lease_expired");
		assertThat(stale.body().path("currentEpoch").asLong()).isEqualTo(2);
		assertOk(complete(next));
	}

	@Test
	void leaseDiesAtItsExpiryOnTheDatabaseClock() {
		UUID id = createItem("short lease");
		JsonNode claim = claim("worker-1", 1);
		Instant expiresAt = instant(claim.path("lease").path("expiresAt"));
		// Real time, no shortcuts: wait until PostgreSQL's clock has passed expiresAt.
		while (!databaseNow().isAfter(expiresAt)) {
			Concurrently.sleep(50);
		}
		assertProblem(renew(claim, 60), 409, "lease_expired");
		assertThat(status(id)).isEqualTo("leased");
		assertThat(reap()).isEqualTo(1);
		assertThat(lease(leaseId(claim)).path("endedAt").asString()).isEqualTo(expiresAt.toString());
	}

	@Test
	void reaperSkipsAnItemLockedByAnotherTransactionInsteadOfWaiting() throws Exception {
		UUID busy = createItem("busy");
		UUID idle = createItem("idle");
		JsonNode busyClaim = claim("worker-1");
		JsonNode idleClaim = claim("worker-2");
		expireLease(leaseId(busyClaim));
		expireLease(leaseId(idleClaim));
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			try (PreparedStatement lock = connection
				.prepareStatement("select 1 from work_items where id = ? for no key update")) {
				lock.setObject(1, busy);
				lock.executeQuery().close();
			}
			int recorded = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> reap());
			assertThat(recorded).isEqualTo(1);
			assertThat(status(idle)).isEqualTo("ready");
			assertThat(status(busy)).isEqualTo("leased");
			connection.rollback();
		}
		assertThat(reap()).isEqualTo(1);
		assertThat(status(busy)).isEqualTo("ready");
	}

	@Test
	void itemThatGainedABlockerDuringTheLeaseIsBlockedOnceItsExpiryIsRecorded() {
		UUID id = createItem("stalls");
		JsonNode claim = claim("worker-1");
		UUID child = createItem("child added meanwhile", "parentId", id);
		expireLease(leaseId(claim));
		assertThat(reap()).isEqualTo(1);
		assertThat(status(id)).isEqualTo("blocked");
		assertThat(itemId(claim("worker-2"))).isEqualTo(child);
	}

	@Test
	void crashLoopGuardHoldsTheItemAfterThreeExpiriesInARow() {
		UUID id = createItem("poison pill");
		String lastLease = null;
		for (String worker : List.of("worker-a", "worker-b", "worker-c")) {
			assertThat(status(id)).isEqualTo("ready");
			JsonNode claim = claim(worker);
			lastLease = leaseId(claim).toString();
			expireLease(leaseId(claim));
			assertThat(reap()).isEqualTo(1);
		}
		JsonNode item = item(id);
		assertThat(item.path("status").asString()).isEqualTo("blocked");
		assertThat(item.path("blockers").path("openAttentionRequests").asInt()).isEqualTo(1);
		nothingToClaim();
		assertThat(item.path("attentionRequests")).hasSize(1);
		JsonNode request = item.path("attentionRequests").get(0);
		assertThat(request.path("raisedBy").asString()).isEqualTo("system");
		assertThat(request.path("workerId").isNull()).isTrue();
		assertThat(request.path("leaseId").asString()).isEqualTo(lastLease);
		assertThat(request.path("epoch").asLong()).isEqualTo(3);
		assertThat(request.path("blocking").asBoolean()).isTrue();
		assertThat(request.path("status").asString()).isEqualTo("open");
		assertThat(request.path("question").asString()).contains("3", "worker-a", "worker-b", "worker-c");
		assertThat(request.path("context").isObject()).isTrue();
		assertThat(leasesOf(id)).extracting((lease) -> lease.path("outcome").asString())
			.containsExactly("expired", "expired", "expired");

		// Resolving the guard's question returns the item and restarts the count.
		assertOk(resolve(uuid(request.path("id")), "fixed the input; try again"));
		assertThat(status(id)).isEqualTo("ready");
		for (int i = 0; i < 2; i++) {
			JsonNode claim = claim("worker-d");
			assertThat(itemId(claim)).isEqualTo(id);
			expireLease(leaseId(claim));
			assertThat(reap()).isEqualTo(1);
			assertThat(status(id)).as("expiry %d since the resolution", i + 1).isEqualTo("ready");
		}
		JsonNode third = claim("worker-e");
		expireLease(leaseId(third));
		assertThat(reap()).isEqualTo(1);
		assertThat(status(id)).isEqualTo("blocked");
		assertThat(openSystemRequests(id)).isEqualTo(1);
	}

	@Test
	void anyOtherOutcomeResetsTheExpiryCount() {
		UUID id = createItem("flaky");
		expireOnce(id);
		expireOnce(id);
		// A release that made progress (a checkpoint), or the no-progress guard would
		// hold
		// the item after the fifth lease below.
		JsonNode ok = claim("worker-ok");
		assertThat(this.api
			.post("/leases/" + leaseId(ok) + "/checkpoints",
					java.util.Map.of("epoch", epoch(ok), "data", java.util.Map.of("step", 1)))
			.status()).isEqualTo(201);
		assertOk(release(ok));
		expireOnce(id);
		expireOnce(id);
		assertThat(status(id)).isEqualTo("ready");
		// A worker's own question (attention_requested) resets it too.
		JsonNode asking = claim("worker-asks");
		assertCreated(askForAttention(asking, "is this input right?", true));
		assertOk(resolve(uuid(item(id).path("attentionRequests").get(0).path("id")), "yes"));
		expireOnce(id);
		expireOnce(id);
		assertThat(status(id)).isEqualTo("ready");
		assertThat(openSystemRequests(id)).isZero();
		expireOnce(id);
		assertThat(status(id)).isEqualTo("blocked");
		assertThat(openSystemRequests(id)).isEqualTo(1);
	}

	@Test
	void guardsQuestionIsResolvedBySystemWhenTheItemIsCancelled() {
		UUID id = createItem("poison pill");
		expireOnce(id);
		expireOnce(id);
		expireOnce(id);
		assertOk(operatorCancel(id, "give up"));
		JsonNode request = item(id).path("attentionRequests").get(0);
		assertThat(request.path("status").asString()).isEqualTo("resolved");
		assertThat(request.path("resolvedBy").asString()).isEqualTo("system");
		assertThat(request.path("resolution").asString()).contains("cancelled");
		assertProblem(resolve(uuid(request.path("id")), "too late"), 409, "already_resolved");
	}

	@Test
	void guardCountsExpiriesPerItem() {
		UUID first = createItem("first", "queue", "one");
		UUID second = createItem("second", "queue", "two");
		for (int i = 0; i < 2; i++) {
			expireOnce(first, "one");
			expireOnce(second, "two");
		}
		assertThat(status(first)).isEqualTo("ready");
		assertThat(status(second)).isEqualTo("ready");
		expireOnce(first, "one");
		assertThat(status(first)).isEqualTo("blocked");
		assertThat(status(second)).isEqualTo("ready");
	}

	private void expireOnce(UUID id) {
		expireOnce(id, "default");
	}

	private void expireOnce(UUID id, String queue) {
		JsonNode claim = claimFrom(queue, "worker-" + UUID.randomUUID().toString().substring(0, 8));
		assertThat(itemId(claim)).isEqualTo(id);
		expireLease(leaseId(claim));
		assertThat(reap()).isEqualTo(1);
	}

	private long openSystemRequests(UUID id) {
		return this.jdbc.sql(
				"select count(*) from attention_requests where item_id = :id and raised_by = 'system' and status = 'open'")
			.param("id", id)
			.query(Long.class)
			.single();
	}

}
