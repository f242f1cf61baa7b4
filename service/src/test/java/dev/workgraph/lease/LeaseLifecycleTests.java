package dev.workgraph.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a holder does with a current lease — renew, release, cancel, complete — and the
 * history every lease leaves behind.
 */
class LeaseLifecycleTests extends LeaseTestSupport {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Test
	void metadataResultAndContextComeBackAsCompactJson() {
		UUID parent = createItem("parent", "metadata", Map.of("branch", "release/1.4", "tags", List.of("a b", "c: d")));
		createItem("child", "parentId", parent.toString(), "metadata", Map.of("k", List.of(1, 2)));
		JsonNode claim = claim("compact-worker");
		assertCreated(this.api.post("/leases/" + leaseId(claim) + "/attention-requests", Map.of("epoch", epoch(claim),
				"question", "ok?", "blocking", false, "context", Map.of("keys", 12, "note", "a: b"))));
		assertOk(complete(claim, Map.of("summary", "disk, full", "n", List.of(1, Map.of("x", true)))));
		String child = this.api.get("/items/" + itemId(claim)).raw().body();
		assertThat(child).contains("\"metadata\":{\"k\":[1,2]}")
			.contains("\"result\":{\"n\":[1,{\"x\":true}],\"summary\":\"disk, full\"}")
			.contains("\"context\":{\"keys\":12,\"note\":\"a: b\"}");
		String parentView = this.api.get("/items/" + parent).raw().body();
		assertThat(parentView).contains("\"metadata\":{\"tags\":[\"a b\",\"c: d\"],\"branch\":\"release/1.4\"}")
			.contains("\"result\":{\"n\":[1,{\"x\":true}],\"summary\":\"disk, full\"}");
		String inbox = this.api.get("/attention-requests?itemId=" + itemId(claim)).raw().body();
		assertThat(inbox).contains("\"context\":{\"keys\":12,\"note\":\"a: b\"}");
		for (String body : List.of(child, parentView, inbox)) {
			assertThat(body.replace("\"a: b\"", "").replace("\"c: d\"", "").replace("disk, full", ""))
				.doesNotContain("\": ")
				.doesNotContain(", ");
		}
	}

	@Test
	void anItemsLeasesComeInPagesOldestFirst() {
		UUID id = createItem("claimed again and again");
		for (int i = 0; i < 6; i++) {
			JsonNode claim = claim("pager-" + i);
			if (i == 3) {
				// Progress now and then, or the no-progress guard holds the item.
				assertThat(this.api
					.post("/leases/" + leaseId(claim) + "/checkpoints",
							java.util.Map.of("epoch", epoch(claim), "data", java.util.Map.of("page", i)))
					.status()).isEqualTo(201);
			}
			assertOk(release(claim));
		}
		JsonNode active = claim("pager-last");
		List<Long> epochs = new java.util.ArrayList<>();
		String cursor = null;
		int pages = 0;
		do {
			Api.Response page = this.api
				.get("/items/" + id + "/leases?limit=3" + ((cursor != null) ? "&cursor=" + cursor : ""));
			assertOk(page);
			assertThat(page.body().path("leases").size()).isBetween(1, 3);
			page.body().path("leases").forEach((lease) -> epochs.add(lease.path("epoch").asLong()));
			cursor = page.body().path("nextCursor").asString(null);
			pages++;
		}
		while (cursor != null);
		assertThat(pages).isEqualTo(3);
		assertThat(epochs).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
		Api.Response all = this.api.get("/items/" + id + "/leases");
		assertThat(all.body().path("leases").size()).isEqualTo(7);
		assertThat(all.body().has("nextCursor")).isTrue();
		assertThat(all.body().path("nextCursor").isNull()).isTrue();
		assertThat(all.body().path("leases").get(6).path("id").asString()).isEqualTo(leaseId(active).toString());
		Api.Response exact = this.api.get("/items/" + id + "/leases?limit=7");
		assertThat(exact.body().path("nextCursor").isNull()).as("no further page when the last one is full").isTrue();
		assertProblem(this.api.get("/items/" + id + "/leases?limit=0"), 422, "validation_failed");
		assertProblem(this.api.get("/items/" + id + "/leases?limit=501"), 422, "validation_failed");
		assertProblem(this.api.get("/items/" + id + "/leases?cursor=bm9wZQ"), 422, "validation_failed");
		createItem("another, so that the item list has a second page");
		String itemCursor = this.api.get("/items?limit=1").body().path("nextCursor").asString();
		assertProblem(this.api.get("/items/" + id + "/leases?cursor=" + itemCursor), 422, "validation_failed");
	}

	@Test
	void renewExtendsExpiryFromTheDatabaseClock() {
		createItem("long task");
		JsonNode claim = claim("worker-1", 60);
		Instant before = databaseNow();
		Api.Response renewed = renew(claim, 3_600);
		assertOk(renewed);
		Instant after = databaseNow();
		JsonNode lease = renewed.body();
		assertThat(lease.path("id").asString()).isEqualTo(leaseId(claim).toString());
		assertThat(lease.path("epoch").asLong()).isEqualTo(1);
		assertThat(lease.path("active").asBoolean()).isTrue();
		Instant renewedAt = instant(lease.path("renewedAt"));
		assertThat(renewedAt).isBetween(before, after);
		assertThat(instant(lease.path("expiresAt"))).isEqualTo(renewedAt.plusSeconds(3_600));
		assertThat(instant(lease.path("acquiredAt"))).isEqualTo(instant(claim.path("lease").path("acquiredAt")));
		assertThat(lease(leaseId(claim)).path("expiresAt").asString()).isEqualTo(lease.path("expiresAt").asString());
		// Without leaseSeconds the configured default applies; a renewal may also
		// shorten.
		JsonNode byDefault = renew(claim, null).body();
		assertThat(Duration.between(instant(byDefault.path("renewedAt")), instant(byDefault.path("expiresAt"))))
			.isEqualTo(Duration.ofSeconds(300));
		JsonNode shortened = renew(claim, 5).body();
		assertThat(Duration.between(instant(shortened.path("renewedAt")), instant(shortened.path("expiresAt"))))
			.isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void renewedLeaseOutlivesItsOriginalExpiry() {
		UUID id = createItem("long task");
		JsonNode claim = claim("worker-1", 60);
		// As if 50 of its 60 seconds had passed: renewing gives it a fresh term.
		this.jdbc
			.sql("update leases set acquired_at = acquired_at - interval '50 seconds', "
					+ "expires_at = expires_at - interval '50 seconds' where id = :id")
			.param("id", leaseId(claim))
			.update();
		assertOk(renew(claim, 120));
		this.jdbc.sql("update leases set expires_at = expires_at - interval '60 seconds' where id = :id")
			.param("id", leaseId(claim))
			.update();
		assertThat(reap()).isZero();
		assertThat(status(id)).isEqualTo("leased");
		assertOk(complete(claim));
	}

	@ParameterizedTest
	@ValueSource(ints = { 0, -5, 86_401 })
	void renewWithLeaseSecondsOutOfRangeIsRejectedAndNothingWritten(int leaseSeconds) {
		createItem("task");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		assertProblem(renew(claim, leaseSeconds), 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void releaseReturnsTheItemToReadyWithAFreshReadySince() {
		UUID id = createItem("task");
		Instant firstReady = instant(item(id).path("readySince"));
		JsonNode claim = claim("worker-1");
		Api.Response released = this.api.post("/leases/" + leaseId(claim) + "/release",
				Map.of("epoch", 1, "reason", "out of budget"));
		assertOk(released);
		JsonNode lease = released.body().path("lease");
		assertThat(lease.path("outcome").asString()).isEqualTo("released");
		assertThat(lease.path("reason").asString()).isEqualTo("out of budget");
		assertThat(lease.path("active").asBoolean()).isFalse();
		assertThat(instant(lease.path("endedAt"))).isBefore(instant(lease.path("expiresAt")));
		JsonNode item = released.body().path("item");
		assertThat(item.path("status").asString()).isEqualTo("ready");
		assertThat(item.path("lease").isNull()).isTrue();
		assertThat(item.path("epoch").asLong()).isEqualTo(1);
		assertThat(instant(item.path("readySince"))).isAfter(firstReady)
			.isAfterOrEqualTo(instant(lease.path("endedAt")));
		JsonNode again = claim("worker-2");
		assertThat(itemId(again)).isEqualTo(id);
		assertThat(epoch(again)).isEqualTo(2);
	}

	@Test
	void releaseLeavesTheItemBlockedWhenADependencyWasAddedDuringTheLease() {
		UUID id = createItem("task");
		JsonNode claim = claim("worker-1");
		UUID prerequisite = createItem("prerequisite discovered meanwhile");
		assertCreated(this.api.post("/items/" + id + "/dependencies", Map.of("dependsOn", prerequisite)));
		// No pre-emption: the holder keeps its lease while the new blocker waits.
		JsonNode during = item(id);
		assertThat(during.path("status").asString()).isEqualTo("leased");
		assertThat(during.path("blockers").path("unmetDependencies").asInt()).isEqualTo(1);
		assertOk(renew(claim, 60));
		Api.Response released = release(claim);
		assertOk(released);
		assertThat(released.body().path("item").path("status").asString()).isEqualTo("blocked");
		assertThat(released.body().path("item").path("readySince").isNull()).isTrue();
		assertThat(itemId(claim("worker-2"))).isEqualTo(prerequisite);
		nothingToClaim();
	}

	@Test
	void releaseLeavesTheItemBlockedWhenAChildWasAddedDuringTheLease() {
		UUID id = createItem("task");
		JsonNode claim = claim("worker-1");
		UUID child = createItem("child added by a planner", "parentId", id);
		Api.Response released = release(claim);
		assertOk(released);
		assertThat(released.body().path("item").path("status").asString()).isEqualTo("blocked");
		assertThat(released.body().path("item").path("blockers").path("openChildren").asInt()).isEqualTo(1);
		assertOk(complete(claim("worker-2")));
		assertThat(status(child)).isEqualTo("completed");
		assertThat(status(id)).isEqualTo("ready");
	}

	@Test
	void leaseCancelCancelsTheItemAndItsOpenDescendants() {
		UUID id = createItem("task");
		JsonNode claim = claim("worker-1");
		UUID doneChild = createItem("done child", "parentId", id, "queue", "done");
		assertOk(complete(claimFrom("done", "worker-2")));
		UUID leasedChild = createItem("leased child", "parentId", id, "queue", "busy");
		JsonNode childClaim = claimFrom("busy", "worker-3");
		UUID blockedChild = createItem("blocked child", "parentId", id, "queue", "never");
		UUID grandchild = createItem("grandchild", "parentId", blockedChild, "queue", "never");
		UUID outsider = createItem("outsider", "queue", "never");
		Api.Response cancelled = cancelLease(claim, "the requirement was dropped");
		assertOk(cancelled);
		JsonNode lease = cancelled.body().path("lease");
		assertThat(lease.path("outcome").asString()).isEqualTo("cancelled");
		assertThat(lease.path("reason").asString()).isEqualTo("the requirement was dropped");
		JsonNode item = cancelled.body().path("item");
		assertThat(item.path("status").asString()).isEqualTo("cancelled");
		assertThat(item.path("closedAt").isNull()).isFalse();
		assertThat(item.path("lease").isNull()).isTrue();
		assertThat(status(leasedChild)).isEqualTo("cancelled");
		assertThat(status(blockedChild)).isEqualTo("cancelled");
		assertThat(status(grandchild)).isEqualTo("cancelled");
		assertThat(status(doneChild)).isEqualTo("completed");
		assertThat(status(outsider)).isEqualTo("ready");
		// The child's holder lost its lease with the same outcome and is fenced.
		assertThat(lease(leaseId(childClaim)).path("outcome").asString()).isEqualTo("cancelled");
		assertProblem(complete(childClaim), 409, "lease_ended");
		nothingToClaim(Map.of("workerId", "w", "queues", List.of("default", "busy", "done")));
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"answer\": 42, \"nested\": {\"list\": [1, \"two\", null]}}", "[1, 2, 3]",
			"\"just text\"", "12.5", "true", "{}", "[]" })
	void completeStoresAnyJsonResult(String result) {
		UUID id = createItem("task");
		JsonNode claim = claim("worker-1");
		Api.Response completed = this.api.post("/leases/" + leaseId(claim) + "/complete",
				"{\"epoch\": 1, \"result\": " + result + "}");
		assertOk(completed);
		assertThat(completed.body().path("lease").path("outcome").asString()).isEqualTo("completed");
		assertThat(completed.body().path("item").path("status").asString()).isEqualTo("completed");
		assertThat(item(id).path("result")).isEqualTo(JSON.readTree(result));
		assertThat(item(id).path("closedAt").isNull()).isFalse();
	}

	@Test
	void completeWithoutResultLeavesResultNull() {
		UUID id = createItem("task");
		assertOk(complete(claim("worker-1")));
		assertThat(item(id).path("result").isNull()).isTrue();
		assertThat(status(id)).isEqualTo("completed");
	}

	@Test
	void completedChildResultIsVisibleInTheParentAndToItsNextClaimant() {
		UUID parent = createItem("parent");
		JsonNode planner = claim("planner");
		assertCreated(decompose(planner, List.of(child("only"))));
		JsonNode worker = claim("worker-1");
		assertOk(complete(worker, Map.of("summary", "did it", "files", List.of("a.txt"))));
		JsonNode children = item(parent).path("children");
		assertThat(children).hasSize(1);
		assertThat(children.get(0).path("status").asString()).isEqualTo("completed");
		assertThat(children.get(0).path("result").path("summary").asString()).isEqualTo("did it");
		JsonNode next = claim("planner-2");
		assertThat(itemId(next)).isEqualTo(parent);
		assertThat(next.path("item").path("children").get(0).path("result").path("files").get(0).asString())
			.isEqualTo("a.txt");
	}

	@Test
	void completeUnblocksDependentsOnceEveryDependencyIsCompleted() {
		UUID first = createItem("first", "queue", "deps");
		UUID second = createItem("second", "queue", "deps");
		UUID dependent = createItem("dependent", "dependsOn", List.of(first, second));
		UUID alsoDependent = createItem("also dependent", "dependsOn", List.of(first));
		assertThat(item(dependent).path("blockers").path("unmetDependencies").asInt()).isEqualTo(2);
		assertOk(complete(claimFrom("deps", "w1")));
		assertThat(item(dependent).path("blockers").path("unmetDependencies").asInt()).isEqualTo(1);
		assertThat(status(dependent)).isEqualTo("blocked");
		assertThat(status(alsoDependent)).isEqualTo("ready");
		assertOk(complete(claimFrom("deps", "w2")));
		assertThat(item(dependent).path("blockers").path("unmetDependencies").asInt()).isZero();
		assertThat(status(dependent)).isEqualTo("ready");
		assertThat(status(first)).isEqualTo("completed");
		assertThat(status(second)).isEqualTo("completed");
	}

	@Test
	void completeIsRefusedWhileChildrenAreOpenAndNothingIsWritten() {
		UUID id = createItem("task");
		JsonNode claim = claim("worker-1");
		UUID child = createItem("child", "parentId", id, "queue", "kids");
		Map<String, Object> before = fingerprint();
		Api.Response refused = complete(claim, Map.of("too", "early"));
		assertProblem(refused, 409, "open_children");
		assertThat(fingerprint()).isEqualTo(before);
		// A cancelled child is as terminal as a completed one.
		assertOk(operatorCancel(child, "not needed after all"));
		assertOk(complete(claim, Map.of("done", true)));
		assertThat(status(id)).isEqualTo("completed");
	}

	@Test
	void completeIsRefusedWhileADependencyAddedDuringTheLeaseIsUnmet() {
		UUID id = createItem("task");
		JsonNode claim = claim("worker-1");
		UUID prerequisite = createItem("prerequisite", "queue", "deps");
		assertCreated(this.api.post("/items/" + id + "/dependencies", Map.of("dependsOn", prerequisite)));
		Map<String, Object> before = fingerprint();
		assertProblem(complete(claim), 409, "unmet_dependencies");
		assertThat(fingerprint()).isEqualTo(before);
		assertOk(complete(claimFrom("deps", "worker-2")));
		assertOk(complete(claim));
		assertThat(status(id)).isEqualTo("completed");
	}

	@Test
	void dependencyOnACompletedItemAddedDuringTheLeaseDoesNotBlockCompletion() {
		UUID done = createItem("done");
		assertOk(complete(claim("w")));
		UUID id = createItem("task");
		JsonNode claim = claim("worker-1");
		assertCreated(this.api.post("/items/" + id + "/dependencies", Map.of("dependsOn", done)));
		assertOk(complete(claim));
	}

	@Test
	void historyListsEveryLeaseOfTheItemActiveAndEndedByEpoch() {
		UUID id = createItem("task");
		assertThat(leasesOf(id)).isEmpty();
		JsonNode first = claim("worker-1");
		assertOk(release(first));
		JsonNode second = claim("worker-2");
		expireLease(leaseId(second));
		reap();
		JsonNode third = claim("worker-3");
		assertCreated(askForAttention(third, "which format?", true));
		UUID request = uuid(item(id).path("attentionRequests").get(0).path("id"));
		assertOk(resolve(request, "json"));
		JsonNode fourth = claim("worker-1");
		List<JsonNode> history = leasesOf(id);
		assertThat(history).extracting((lease) -> lease.path("id").asString())
			.containsExactly(leaseId(first).toString(), leaseId(second).toString(), leaseId(third).toString(),
					leaseId(fourth).toString());
		assertThat(history).extracting((lease) -> lease.path("outcome").asString(null))
			.containsExactly("released", "expired", "attention_requested", null);
		assertThat(history).extracting((lease) -> lease.path("workerId").asString())
			.containsExactly("worker-1", "worker-2", "worker-3", "worker-1");
		assertThat(history).extracting((lease) -> lease.path("active").asBoolean())
			.containsExactly(false, false, false, true);
		assertThat(history.get(1).path("endedAt").asString()).isEqualTo(history.get(1).path("expiresAt").asString());
		for (JsonNode lease : history) {
			assertThat(lease.path("itemId").asString()).isEqualTo(id.toString());
			assertThat(lease(uuid(lease.path("id")))).isEqualTo(lease);
		}
	}

	@Test
	void leaseAndHistoryOfUnknownIdsAreNotFound() {
		assertProblem(this.api.get("/leases/" + UUID.randomUUID()), 404, "not_found");
		assertProblem(this.api.get("/leases/nope"), 404, "not_found");
		assertProblem(this.api.get("/items/" + UUID.randomUUID() + "/leases"), 404, "not_found");
	}

	@Test
	void leaseHistoryCannotBeUpdatedDeletedOrTruncatedInSql() {
		UUID id = createItem("task");
		JsonNode claim = claim("worker-1");
		assertOk(complete(claim));
		Map<String, Object> before = fingerprint();
		for (String statement : List.of("update lease_history set outcome = 'released'",
				"update lease_history set reason = 'rewritten' where lease_id = '" + leaseId(claim) + "'",
				"delete from lease_history", "delete from lease_history where item_id = '" + id + "'",
				"truncate lease_history", "truncate lease_history cascade")) {
			assertThatExceptionOfType(DataAccessException.class).as(statement)
				.isThrownBy(() -> this.jdbc.sql(statement).update())
				.havingRootCause()
				.withMessageContaining("lease_history is append-only");
		}
		assertThat(fingerprint()).isEqualTo(before);
		assertThat(historyRows(id)).isEqualTo(1);
	}

	@Test
	void theDatabaseRefusesALeaseThatEndsBeforeItBeganAndALeasedItemNeverClaimed() {
		UUID claimed = createItem("claimed");
		JsonNode claim = claim("worker-1");
		assertOk(complete(claim));
		UUID neverClaimed = createItem("never claimed");
		Map<String, Object> before = fingerprint();
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> this.jdbc.sql("""
				insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, expires_at, ended_at,
				    outcome)
				values (gen_random_uuid(), :item, 'worker-1', 2, now(), now() + interval '1 minute',
				    now() - interval '1 second', 'released')
				""").param("item", claimed).update())
			.havingRootCause()
			.withMessageContaining("lease_history_ends_after_acquired");
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(
					() -> this.jdbc.sql("update work_items set status = 'leased', ready_since = null where id = :id")
						.param("id", neverClaimed)
						.update())
			.havingRootCause()
			.withMessageContaining("work_items_leased_has_epoch");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void operatorCancelEndsActiveLeasesOfTheItemAndItsDescendants() {
		UUID root = createItem("root");
		JsonNode rootClaim = claim("worker-1");
		UUID child = createItem("child", "parentId", root, "queue", "kids");
		JsonNode childClaim = claimFrom("kids", "worker-2");
		UUID stalled = createItem("stalled child", "parentId", root, "queue", "kids");
		JsonNode stalledClaim = claimFrom("kids", "worker-3");
		expireLease(leaseId(stalledClaim));
		Api.Response cancelled = operatorCancel(root, "out of scope");
		assertOk(cancelled);
		assertThat(cancelled.body().path("status").asString()).isEqualTo("cancelled");
		assertThat(status(child)).isEqualTo("cancelled");
		assertThat(status(stalled)).isEqualTo("cancelled");
		JsonNode rootLease = lease(leaseId(rootClaim));
		assertThat(rootLease.path("outcome").asString()).isEqualTo("cancelled");
		assertThat(rootLease.path("reason").asString()).isEqualTo("out of scope");
		assertThat(lease(leaseId(childClaim)).path("outcome").asString()).isEqualTo("cancelled");
		// A lease that had already died by expiry keeps that as its outcome, at its
		// expiry.
		JsonNode stalledLease = lease(leaseId(stalledClaim));
		assertThat(stalledLease.path("outcome").asString()).isEqualTo("expired");
		assertThat(stalledLease.path("endedAt").asString()).isEqualTo(stalledLease.path("expiresAt").asString());
		assertProblem(complete(rootClaim), 409, "lease_ended");
		assertProblem(renew(childClaim, 60), 409, "lease_ended");
		assertProblem(complete(stalledClaim), 409, "lease_expired");
		assertThat(reap()).isZero();
		assertThat(count("select count(*) from leases")).isZero();
	}

	@Test
	void reasonLongerThan2000CharactersIsRejected() {
		createItem("task");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		for (String path : List.of("release", "cancel")) {
			assertProblem(this.api.post("/leases/" + leaseId(claim) + "/" + path,
					Map.of("epoch", 1, "reason", "r".repeat(2_001))), 422, "validation_failed");
		}
		assertThat(fingerprint()).isEqualTo(before);
		assertOk(this.api.post("/leases/" + leaseId(claim) + "/release",
				Map.of("epoch", 1, "reason", "r".repeat(2_000))));
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"text\": \"a\\u0000b\"}", "{\"k\\u0000\": 1}", "[\"\\ud800\"]",
			"{\"deep\": [{\"x\": \"\\udc00 lone low surrogate\"}]}" })
	void resultWithForbiddenTextIsRejectedAndNothingWritten(String result) {
		createItem("task");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		assertProblem(
				this.api.post("/leases/" + leaseId(claim) + "/complete", "{\"epoch\": 1, \"result\": " + result + "}"),
				422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
		assertThat(status(itemId(claim))).isEqualTo("leased");
	}

	@Test
	void resultLargerThan64KiBIsRejected() {
		createItem("task");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		assertProblem(complete(claim, Map.of("big", "x".repeat(70_000))), 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
		assertOk(complete(claim, Map.of("big", "x".repeat(60_000))));
	}

}
