package dev.workgraph.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing (docs/http-api.md, "Fencing" and "Which stale-lease code"): every lease
 * mutation against every way a lease can be stale or dead. The answer is a 409 with the
 * right code and the ids involved, it is the same before and after the reaper has run,
 * and nothing at all is written.
 */
class FencingTests extends LeaseTestSupport {

	/** How the presented lease came to be stale, and what the service must answer. */
	enum Staleness {

		/** The lease is active; the worker presents an epoch from the future. */
		ACTIVE_LEASE_WITH_HIGHER_EPOCH,
		/**
		 * The same worker released and reclaimed the item; a delayed request presents the
		 * new lease with the old epoch.
		 */
		SAME_WORKER_RECLAIMED_NEW_LEASE_WITH_OLD_EPOCH,
		/**
		 * As above, but the first lease expired (and was recorded) before the reclaim.
		 */
		SAME_WORKER_RECLAIMED_AFTER_EXPIRY_NEW_LEASE_WITH_OLD_EPOCH,
		/**
		 * The same worker reclaimed after releasing; a delayed request uses the old
		 * lease.
		 */
		SAME_WORKER_RECLAIMED_OLD_RELEASED_LEASE,
		/**
		 * The same worker reclaimed after expiry; a delayed request uses the old lease.
		 */
		SAME_WORKER_RECLAIMED_OLD_EXPIRED_LEASE, ENDED_BY_COMPLETE, ENDED_BY_RELEASE, ENDED_BY_LEASE_CANCEL,
		ENDED_BY_DECOMPOSE, ENDED_BY_BLOCKING_ATTENTION_REQUEST, ENDED_BY_OPERATOR_CANCEL,
		/** The holder handed the item off; a delayed request uses its old lease. */
		ENDED_BY_HANDOFF,
		/**
		 * The holder handed the item off to itself; a delayed request presents the new
		 * lease with the old epoch.
		 */
		HANDED_OFF_NEW_LEASE_WITH_OLD_EPOCH,
		/** Ended beats epoch mismatch in the documented order of checks. */
		ENDED_AND_PRESENTED_WITH_WRONG_EPOCH,
		/** Past expiresAt, not yet recorded by the reaper: dead all the same. */
		EXPIRED_NOT_YET_RECORDED,
		/** Expired beats epoch mismatch, recorded or not. */
		EXPIRED_NOT_YET_RECORDED_AND_PRESENTED_WITH_WRONG_EPOCH, EXPIRED_AND_RECORDED,
		/** The operator cancelled the item after the lease had died by expiry. */
		EXPIRED_THEN_ITEM_CANCELLED_BY_OPERATOR,
		/** The holder got a non-blocking answer first: it did not end the lease. */
		EXPIRED_AFTER_NON_BLOCKING_ATTENTION_REQUEST

	}

	/** The stale request to make, and the answer it must get. */
	record Stale(UUID leaseId, long presentedEpoch, String code, long currentEpoch) {
	}

	static List<Arguments> everyMutationAgainstEveryStaleness() {
		List<Arguments> cases = new ArrayList<>();
		for (Mutation mutation : Mutation.values()) {
			for (Staleness staleness : Staleness.values()) {
				cases.add(Arguments.of(mutation, staleness));
			}
		}
		return cases;
	}

	@ParameterizedTest(name = "{0} with {1}")
	@MethodSource("everyMutationAgainstEveryStaleness")
	void staleOrDeadLeaseIsRejectedWithoutWritingAnything(Mutation mutation, Staleness staleness) {
		Stale stale = arrange(staleness);
		assertRejectedAndNothingWritten(mutation, stale);
		// The answer never depends on whether the reaper has run yet.
		reap();
		assertRejectedAndNothingWritten(mutation, stale);
	}

	/**
	 * Group commit (docs/adr/0009): in a batch completion the stale entry gets the answer
	 * the single complete would get, writes nothing, and does not keep the current
	 * entries around it from completing in the same transaction.
	 */
	@ParameterizedTest
	@EnumSource(Staleness.class)
	void staleEntryOfABatchCompletionIsRejectedAloneWhileTheOthersComplete(Staleness staleness) {
		Stale stale = arrange(staleness);
		createItem("beside 1", "queue", "beside");
		createItem("beside 2", "queue", "beside");
		JsonNode first = claimFrom("beside", "worker-2");
		JsonNode second = claimFrom("beside", "worker-3");
		long history = count("select count(*) from lease_history");
		long completed = count("select count(*) from work_items where status = 'completed'");
		Api.Response response = this.api.post("/completions",
				Map.of("completions",
						List.of(Map.of("leaseId", leaseId(first), "epoch", epoch(first), "result", Map.of("n", 1)),
								Map.of("leaseId", stale.leaseId(), "epoch", stale.presentedEpoch()),
								Map.of("leaseId", leaseId(second), "epoch", epoch(second)))));
		assertThat(response.status()).as(response.toString()).isEqualTo(200);
		JsonNode results = response.body().path("results");
		assertThat(results.get(0).path("status").asInt()).isEqualTo(200);
		assertThat(results.get(2).path("status").asInt()).isEqualTo(200);
		JsonNode rejected = results.get(1);
		assertThat(rejected.path("status").asInt()).as(rejected.toString()).isEqualTo(409);
		assertThat(rejected.path("leaseId").asString()).isEqualTo(stale.leaseId().toString());
		assertThat(rejected.path("problem").path("code").asString()).isEqualTo(stale.code());
		assertThat(rejected.path("problem").path("presentedEpoch").asLong()).isEqualTo(stale.presentedEpoch());
		assertThat(rejected.path("problem").path("currentEpoch").asLong()).isEqualTo(stale.currentEpoch());
		assertThat(status(itemId(first))).isEqualTo("completed");
		assertThat(status(itemId(second))).isEqualTo("completed");
		// Exactly the two current ones wrote, in one transaction.
		assertThat(count("select count(*) from lease_history")).isEqualTo(history + 2);
		assertThat(count("select count(*) from work_items where status = 'completed'")).isEqualTo(completed + 2);
		assertThat(count(
				"select count(distinct xmin::text) from lease_history where worker_id in ('worker-2', 'worker-3')"))
			.isEqualTo(1);
	}

	@ParameterizedTest
	@EnumSource(Mutation.class)
	void unknownLeaseIsNotFound(Mutation mutation) {
		createItem("something to hold");
		claim("worker-1");
		Map<String, Object> before = fingerprint();
		UUID unknown = UUID.randomUUID();
		Api.Response response = mutate(mutation, unknown, 1);
		assertProblem(response, 404, "not_found");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@ParameterizedTest
	@EnumSource(Mutation.class)
	void malformedLeaseIdInThePathIsNotFound(Mutation mutation) {
		Api.Response response = this.api.post("/leases/not-a-uuid/" + mutation.segment(), mutation.body(1));
		assertProblem(response, 404, "not_found");
	}

	@ParameterizedTest
	@EnumSource(Mutation.class)
	void currentLeaseSucceedsWhereTheStaleOnesFail(Mutation mutation) {
		// The control for the table above: the same bodies are accepted from the holder.
		createItem("something to hold");
		JsonNode claim = claim("worker-1");
		Api.Response response = mutate(mutation, leaseId(claim), epoch(claim));
		assertThat(response.status()).as(response.toString()).isIn(200, 201);
	}

	@Test
	void missingEpochIsAValidationErrorNotAFencingAnswer() {
		createItem("something to hold");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		Api.Response response = this.api.post("/leases/" + leaseId(claim) + "/complete", Map.of());
		assertProblem(response, 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"1\"", "1.0", "1.5", "true", "null", "[1]", "{}", "9223372036854775808" })
	void epochThatIsNotAnIntegerIsAValidationError(String epoch) {
		createItem("something to hold");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		for (Mutation mutation : Mutation.values()) {
			Api.Response response = this.api.post(mutation.path(leaseId(claim)), "{\"epoch\": " + epoch + "}");
			assertThat(response.status()).as("%s %s", mutation, response).isIn(400, 422);
			assertThat(response.code()).isIn("validation_failed", "malformed_request");
		}
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void negativeEpochIsAnEpochMismatch() {
		createItem("something to hold");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		Api.Response response = mutate(Mutation.COMPLETE, leaseId(claim), -1);
		assertProblem(response, 409, "epoch_mismatch");
		assertThat(response.body().path("presentedEpoch").asLong()).isEqualTo(-1);
		assertThat(fingerprint()).isEqualTo(before);
	}

	private void assertRejectedAndNothingWritten(Mutation mutation, Stale stale) {
		Map<String, Object> before = fingerprint();
		Api.Response response = mutate(mutation, stale.leaseId(), stale.presentedEpoch());
		assertProblem(response, 409, stale.code());
		assertThat(response.body().path("leaseId").asString()).isEqualTo(stale.leaseId().toString());
		assertThat(response.body().path("presentedEpoch").asLong()).isEqualTo(stale.presentedEpoch());
		assertThat(response.body().path("currentEpoch").asLong()).isEqualTo(stale.currentEpoch());
		assertThat(fingerprint()).as("nothing written by a rejected %s", mutation).isEqualTo(before);
	}

	private Stale arrange(Staleness staleness) {
		UUID itemId = createItem("contested item");
		// An unrelated item keeps "nothing written" honest for writes that could go
		// astray.
		createItem("bystander", "queue", "elsewhere");
		JsonNode claim = claimFrom("default", "worker-1");
		UUID leaseId = leaseId(claim);
		return switch (staleness) {
			case ACTIVE_LEASE_WITH_HIGHER_EPOCH -> new Stale(leaseId, 2, "epoch_mismatch", 1);
			case SAME_WORKER_RECLAIMED_NEW_LEASE_WITH_OLD_EPOCH -> {
				assertOk(release(claim));
				JsonNode again = claimFrom("default", "worker-1");
				assertThat(itemId(again)).isEqualTo(itemId);
				yield new Stale(leaseId(again), 1, "epoch_mismatch", 2);
			}
			case SAME_WORKER_RECLAIMED_AFTER_EXPIRY_NEW_LEASE_WITH_OLD_EPOCH -> {
				JsonNode again = reclaimAfterExpiry(leaseId, itemId);
				yield new Stale(leaseId(again), 1, "epoch_mismatch", 2);
			}
			case SAME_WORKER_RECLAIMED_OLD_RELEASED_LEASE -> {
				assertOk(release(claim));
				assertThat(itemId(claimFrom("default", "worker-1"))).isEqualTo(itemId);
				yield new Stale(leaseId, 1, "lease_ended", 2);
			}
			case SAME_WORKER_RECLAIMED_OLD_EXPIRED_LEASE -> {
				reclaimAfterExpiry(leaseId, itemId);
				yield new Stale(leaseId, 1, "lease_expired", 2);
			}
			case ENDED_BY_COMPLETE -> {
				assertOk(complete(claim));
				yield new Stale(leaseId, 1, "lease_ended", 1);
			}
			case ENDED_BY_RELEASE -> {
				assertOk(release(claim));
				yield new Stale(leaseId, 1, "lease_ended", 1);
			}
			case ENDED_BY_LEASE_CANCEL -> {
				assertOk(cancelLease(claim, "no longer needed"));
				yield new Stale(leaseId, 1, "lease_ended", 1);
			}
			case ENDED_BY_DECOMPOSE -> {
				assertCreated(decompose(claim, List.of(child("x"))));
				yield new Stale(leaseId, 1, "lease_ended", 1);
			}
			case ENDED_BY_BLOCKING_ATTENTION_REQUEST -> {
				assertCreated(askForAttention(claim, "help?", true));
				yield new Stale(leaseId, 1, "lease_ended", 1);
			}
			case ENDED_BY_HANDOFF -> {
				assertCreated(handOff(claim, "worker-2"));
				yield new Stale(leaseId, 1, "lease_ended", 2);
			}
			case HANDED_OFF_NEW_LEASE_WITH_OLD_EPOCH -> {
				Api.Response handed = handOff(claim, "worker-1");
				assertCreated(handed);
				yield new Stale(uuid(handed.body().path("lease").path("id")), 1, "epoch_mismatch", 2);
			}
			case ENDED_BY_OPERATOR_CANCEL -> {
				assertOk(operatorCancel(itemId, "changed plans"));
				yield new Stale(leaseId, 1, "lease_ended", 1);
			}
			case ENDED_AND_PRESENTED_WITH_WRONG_EPOCH -> {
				assertOk(release(claim));
				yield new Stale(leaseId, 7, "lease_ended", 1);
			}
			case EXPIRED_NOT_YET_RECORDED -> {
				expireLease(leaseId);
				yield new Stale(leaseId, 1, "lease_expired", 1);
			}
			case EXPIRED_NOT_YET_RECORDED_AND_PRESENTED_WITH_WRONG_EPOCH -> {
				expireLease(leaseId);
				yield new Stale(leaseId, 0, "lease_expired", 1);
			}
			case EXPIRED_AND_RECORDED -> {
				expireLease(leaseId);
				assertThat(reap()).isEqualTo(1);
				yield new Stale(leaseId, 1, "lease_expired", 1);
			}
			case EXPIRED_THEN_ITEM_CANCELLED_BY_OPERATOR -> {
				expireLease(leaseId);
				assertOk(operatorCancel(itemId, "changed plans"));
				yield new Stale(leaseId, 1, "lease_expired", 1);
			}
			case EXPIRED_AFTER_NON_BLOCKING_ATTENTION_REQUEST -> {
				assertCreated(askForAttention(claim, "by the way", false));
				expireLease(leaseId);
				yield new Stale(leaseId, 1, "lease_expired", 1);
			}
		};
	}

	private JsonNode reclaimAfterExpiry(UUID leaseId, UUID itemId) {
		expireLease(leaseId);
		assertThat(reap()).isEqualTo(1);
		JsonNode again = claimFrom("default", "worker-1");
		assertThat(itemId(again)).isEqualTo(itemId);
		assertThat(epoch(again)).isEqualTo(2);
		return again;
	}

}
