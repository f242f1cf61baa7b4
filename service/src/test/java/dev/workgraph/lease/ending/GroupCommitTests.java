package dev.workgraph.lease.ending;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import dev.workgraph.batching.CoalescingProperties;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Group commit (docs/adr/0009): completions and renewals that arrive together are
 * committed by one transaction, each fenced and answered on its own. A table lock on
 * {@code lease_history} (completions) or {@code leases} (renewals) holds the first
 * requests in flight so that the rest queue and form a real batch; the batch is told
 * apart by its transaction id ({@code xmin}) on the rows it wrote.
 */
class GroupCommitTests extends LeaseTestSupport {

	@Autowired
	private CoalescingProperties coalescing;

	@AfterEach
	void dropPoison() {
		this.jdbc.sql("drop trigger if exists poison on work_items").update();
		this.jdbc.sql("drop function if exists poison()").update();
		this.jdbc.sql("drop trigger if exists record_transaction on leases").update();
		this.jdbc.sql("drop trigger if exists record_transaction on lease_history").update();
		this.jdbc.sql("drop function if exists record_transaction()").update();
		this.jdbc.sql("drop table if exists transactions_seen").update();
	}

	@Test
	void completionsQueuedTogetherAreOneTransactionAndAStaleOneGetsItsOwn409() throws Exception {
		int alone = this.coalescing.maxInFlight();
		int queued = 20;
		List<JsonNode> claims = claimedItems(alone + queued);
		// Every fourth queued request presents a wrong epoch, one a lease that ended.
		JsonNode ended = claims.get(alone + 1);
		assertOk(release(ended));
		List<Api.Response> answers = queuedBehindLock(this.coalescing.maxInFlight(), "lease_history", alone + queued,
				(i) -> {
					JsonNode claim = claims.get(i);
					long epoch = (i >= alone && i % 4 == 0) ? epoch(claim) + 7 : epoch(claim);
					return this.api.post("/leases/" + leaseId(claim) + "/complete",
							Map.of("epoch", epoch, "result", Map.of("n", i)));
				});
		int completed = 0;
		for (int i = 0; i < answers.size(); i++) {
			Api.Response answer = answers.get(i);
			if (i == alone + 1) {
				assertProblem(answer, 409, "lease_ended");
			}
			else if (i >= alone && i % 4 == 0) {
				assertProblem(answer, 409, "epoch_mismatch");
				assertThat(answer.body().path("presentedEpoch").asLong()).isEqualTo(epoch(claims.get(i)) + 7);
				assertThat(status(itemId(claims.get(i)))).isEqualTo("leased");
			}
			else {
				assertOk(answer);
				assertThat(answer.body().path("lease").path("outcome").asString()).isEqualTo("completed");
				assertThat(answer.body().path("item").path("status").asString()).isEqualTo("completed");
				assertThat(answer.body().path("item").path("result").path("n").asInt()).isEqualTo(i);
				completed++;
			}
		}
		assertThat(count("select count(*) from work_items where status = 'completed'")).isEqualTo(completed);
		// The queued completions were committed by one transaction, or two when both
		// freed slots went to queued requests at once.
		assertThat(count("select count(distinct xmin::text) from lease_history where outcome = 'completed'"))
			.isBetween(alone + 1L, alone + 2L);
	}

	/**
	 * Completions committed together answer each item's view from the statement that
	 * completed it: the same view, parts and all, that a read of the item gives
	 * afterwards.
	 */
	@Test
	void completionsCommittedTogetherAnswerTheViewsThatAReadGivesAfterwards() throws Exception {
		UUID done = createItem("done before");
		assertOk(complete(claim("worker-done"), Map.of()));
		int alone = this.coalescing.maxInFlight();
		int queued = 8;
		List<JsonNode> claims = claimedItems(alone + queued);
		for (JsonNode claim : claims) {
			// An edge to a completed item, which does not block, and an answered
			// question.
			assertThat(this.api.post("/items/" + itemId(claim) + "/dependencies", Map.of("dependsOn", done)).status())
				.isEqualTo(201);
			assertOk(resolve(askForAttention(claim, "this way?", false).id(), "yes"));
		}
		List<Api.Response> answers = queuedBehindLock(alone, "lease_history", alone + queued,
				(i) -> this.api.post("/leases/" + leaseId(claims.get(i)) + "/complete",
						Map.of("epoch", epoch(claims.get(i)), "result", Map.of("n", i))));
		for (int i = 0; i < answers.size(); i++) {
			assertOk(answers.get(i));
			JsonNode answered = answers.get(i).body().path("item");
			assertThat(answered.path("dependsOn").size()).isOne();
			assertThat(answered.path("attentionRequests").size()).isOne();
			assertThat(answered).isEqualTo(item(itemId(claims.get(i))));
		}
		assertThat(count("select count(distinct xmin::text) from lease_history where outcome = 'completed'"))
			.as("the worker-done completion, the lone ones and one or two batches")
			.isBetween(1 + alone + 1L, 1 + alone + 2L);
	}

	/**
	 * Completions with {@code claimNext} that queue together commit with their claims in
	 * one transaction: test triggers record the (top-level) transaction that writes each
	 * completed lease's history row and each new lease, and each completion shares its
	 * transaction with the claim after it. A stale one among them gets its own 409 and
	 * claims nothing; every other worker gets an item of its own.
	 */
	@Test
	void chainedCompletionsQueuedTogetherClaimInTheirCompletionsTransaction() throws Exception {
		int alone = this.coalescing.maxInFlight();
		int queued = 16;
		List<JsonNode> claims = claimedItems(alone + queued);
		for (int i = 0; i < alone + queued; i++) {
			createItem("next " + i);
		}
		this.jdbc.sql("create table transactions_seen (lease_id uuid, written text, tx bigint)").update();
		this.jdbc.sql("""
				create function record_transaction() returns trigger language plpgsql as $$
				begin
				    -- txid_current() is the top-level transaction's, in a subtransaction too.
				    insert into transactions_seen values (
				        coalesce(to_jsonb(new) ->> 'lease_id', to_jsonb(new) ->> 'id')::uuid,
				        tg_table_name, txid_current());
				    return new;
				end $$
				""").update();
		for (String table : List.of("leases", "lease_history")) {
			this.jdbc
				.sql("create trigger record_transaction after insert on " + table
						+ " for each row execute function record_transaction()")
				.update();
		}
		List<Api.Response> answers = queuedBehindLock(alone, "lease_history", alone + queued, (i) -> {
			JsonNode claim = claims.get(i);
			long epoch = (i >= alone && i % 4 == 0) ? epoch(claim) + 1 : epoch(claim);
			return this.api.post("/leases/" + leaseId(claim) + "/complete",
					Map.of("epoch", epoch, "claimNext", Map.of()));
		});
		Set<UUID> nextItems = new HashSet<>();
		int stale = 0;
		for (int i = 0; i < answers.size(); i++) {
			Api.Response answer = answers.get(i);
			JsonNode claim = claims.get(i);
			if (i >= alone && i % 4 == 0) {
				assertProblem(answer, 409, "epoch_mismatch");
				assertThat(status(itemId(claim))).isEqualTo("leased");
				stale++;
				continue;
			}
			assertOk(answer);
			assertThat(answer.body().path("item").path("status").asString()).isEqualTo("completed");
			JsonNode next = answer.body().path("next");
			assertThat(next.path("lease").path("workerId").asString()).as(answer.toString()).isEqualTo("worker-" + i);
			assertThat(nextItems.add(itemId(next))).isTrue();
			assertThat(status(itemId(next))).isEqualTo("leased");
			assertThat(count("select count(*) from transactions_seen h join transactions_seen l using (tx)"
					+ " where h.written = 'lease_history' and h.lease_id = '" + leaseId(claim) + "'"
					+ " and l.written = 'leases' and l.lease_id = '" + leaseId(next) + "'"))
				.as("the completion of %s and the claim after it in one transaction", i)
				.isEqualTo(1);
		}
		assertThat(nextItems).hasSize(alone + queued - stale);
		assertThat(count("select count(*) from work_items where status = 'completed'")).isEqualTo(nextItems.size());
		// The queued ones and their claims: one transaction, or two when both freed
		// slots went to queued requests at once.
		assertThat(count("select count(distinct xmin::text) from lease_history where outcome = 'completed'"))
			.isBetween(alone + 1L, alone + 2L);
	}

	/**
	 * The claims of chained completions run behind a savepoint: when they fail, their
	 * batch's completions are committed all the same. Each claim is tried again after the
	 * commit; the ones that fail again say why nothing came next, and the item they
	 * failed on stays ready (a retry that found it locked by another may take the spare).
	 */
	@Test
	void chainedClaimsThatFailLeaveTheCompletionsOfTheirBatchCommitted() throws Exception {
		int alone = this.coalescing.maxInFlight();
		int queued = 8;
		List<JsonNode> claims = claimedItems(alone + queued);
		refuseLeasesOf("poison", "40001");
		UUID poison = createItem("poison", "priority", 10);
		UUID spare = createItem("spare");
		List<Api.Response> answers = queuedBehindLock(alone, "lease_history", alone + queued,
				(i) -> this.api.post("/leases/" + leaseId(claims.get(i)) + "/complete",
						Map.of("epoch", epoch(claims.get(i)), "claimNext", Map.of())));
		int refused = 0;
		for (int i = 0; i < answers.size(); i++) {
			Api.Response answer = answers.get(i);
			assertOk(answer);
			assertThat(answer.body().path("item").path("status").asString()).isEqualTo("completed");
			assertThat(status(itemId(claims.get(i)))).isEqualTo("completed");
			if (answer.body().path("next").isNull()) {
				assertThat(answer.body().path("nextProblem").path("code").asString()).as(answer.toString())
					.isEqualTo("service_unavailable");
				refused++;
			}
			else {
				assertThat(itemId(answer.body().path("next"))).isEqualTo(spare);
			}
		}
		assertThat(refused).isBetween(alone + queued - 1, alone + queued);
		assertThat(status(poison)).isEqualTo("ready");
		assertThat(count("select count(*) from leases")).isEqualTo(alone + queued - refused);
	}

	/**
	 * A connection lost during the claim of a chained completion loses the transaction
	 * the completion is in: the request is answered 503 and nothing of it is written, so
	 * the worker's retry of the same completion goes through.
	 */
	@Test
	void aChainedCompletionWhoseClaimLosesTheConnectionWritesNothing() {
		JsonNode held = claimedItems(1).getFirst();
		refuseLeasesOf("poison", "57P03");
		UUID poison = createItem("poison");
		Map<String, Object> before = fingerprint();

		Api.Response lost = this.api.post("/leases/" + leaseId(held) + "/complete",
				Map.of("epoch", epoch(held), "claimNext", Map.of()));
		assertProblem(lost, 503, "service_unavailable");
		assertThat(fingerprint()).isEqualTo(before);
		assertThat(lease(leaseId(held)).path("active").asBoolean()).isTrue();

		assertOk(complete(held, Map.of("retried", true)));
		assertThat(status(itemId(held))).isEqualTo("completed");
		assertThat(status(poison)).isEqualTo("ready");
	}

	@Test
	void releasesQueuedTogetherAreOneTransactionAndAStaleOneGetsItsOwn409() throws Exception {
		int alone = this.coalescing.maxInFlight();
		int queued = 12;
		List<JsonNode> claims = claimedItems(alone + queued);
		UUID blocker = createItem("blocker added during the lease");
		JsonNode blocked = claims.get(alone + 2);
		assertThat(this.api.post("/items/" + itemId(blocked) + "/dependencies", Map.of("dependsOn", blocker)).status())
			.isEqualTo(201);
		List<Api.Response> answers = queuedBehindLock(this.coalescing.maxInFlight(), "lease_history", alone + queued,
				(i) -> this.api.post("/leases/" + leaseId(claims.get(i)) + "/release",
						Map.of("epoch", epoch(claims.get(i)) + ((i == alone + 5) ? 1 : 0), "reason", "reason " + i)));
		for (int i = 0; i < answers.size(); i++) {
			JsonNode claim = claims.get(i);
			if (i == alone + 5) {
				assertProblem(answers.get(i), 409, "epoch_mismatch");
				assertThat(status(itemId(claim))).isEqualTo("leased");
				continue;
			}
			assertOk(answers.get(i));
			assertThat(answers.get(i).body().path("lease").path("outcome").asString()).isEqualTo("released");
			assertThat(answers.get(i).body().path("lease").path("reason").asString()).isEqualTo("reason " + i);
			String expected = (i == alone + 2) ? "blocked" : "ready";
			assertThat(answers.get(i).body().path("item").path("status").asString()).isEqualTo(expected);
			assertThat(status(itemId(claim))).isEqualTo(expected);
		}
		assertThat(count("select count(distinct xmin::text) from lease_history")).isBetween(alone + 1L, alone + 2L);
	}

	@Test
	void renewalsQueuedTogetherAreOneTransactionAndAStaleOneGetsItsOwn409() throws Exception {
		int alone = this.coalescing.maxInFlight();
		int queued = 12;
		List<JsonNode> claims = claimedItems(alone + queued);
		UUID expired = leaseId(claims.get(alone + 3));
		expireLease(expired);
		List<Api.Response> answers = queuedBehindLock(this.coalescing.maxInFlight(), "leases", alone + queued,
				(i) -> this.api.post("/leases/" + leaseId(claims.get(i)) + "/renew",
						Map.of("epoch", epoch(claims.get(i)), "leaseSeconds", 600 + i)));
		for (int i = 0; i < answers.size(); i++) {
			if (i == alone + 3) {
				assertProblem(answers.get(i), 409, "lease_expired");
			}
			else {
				assertOk(answers.get(i));
				assertThat(answers.get(i).body().path("renewedAt").isNull()).isFalse();
			}
		}
		assertThat(count("select count(*) from leases where renewed_at is not null")).isEqualTo(alone + queued - 1);
		assertThat(count("select count(distinct xmin::text) from leases where renewed_at is not null"))
			.isBetween(alone + 1L, alone + 2L);
		// Each got its own length.
		assertThat(
				count("""
						select count(*) from leases
						where renewed_at is not null and expires_at - renewed_at between interval '600 seconds' and interval '700 seconds'
						"""))
			.isEqualTo(alone + queued - 1);
	}

	@Test
	void batchCompletionAnswersEachEntryAsTheSingleCompleteWouldInRequestOrder() {
		UUID parent = createItem("parent", "queue", "p");
		JsonNode parentClaim = claimFrom("p", "worker-p");
		createItem("child", "parentId", parent, "queue", "c");
		UUID dependency = createItem("dependency", "queue", "d");
		UUID dependent = createItem("dependent", "queue", "d2", "dependsOn", List.of(dependency));
		JsonNode dependencyClaim = claimFrom("d", "worker-d");
		UUID plain = createItem("plain", "queue", "x");
		JsonNode plainClaim = claimFrom("x", "worker-x");
		UUID unknown = UUID.randomUUID();
		Api.Response response = this.api.post("/completions",
				Map.of("completions",
						List.of(entry(dependencyClaim, Map.of("built", true)), Map.of("leaseId", unknown, "epoch", 1),
								entry(parentClaim, null), Map.of("leaseId", leaseId(plainClaim), "epoch", 5),
								entry(plainClaim, List.of(1, 2)))));
		assertOk(response);
		List<JsonNode> results = new ArrayList<>();
		response.body().path("results").forEach(results::add);
		assertThat(results).extracting((result) -> result.path("leaseId").asString())
			.containsExactly(leaseId(dependencyClaim).toString(), unknown.toString(), leaseId(parentClaim).toString(),
					leaseId(plainClaim).toString(), leaseId(plainClaim).toString());
		assertThat(results.get(0).path("status").asInt()).isEqualTo(200);
		assertThat(results.get(0).path("lease").path("outcome").asString()).isEqualTo("completed");
		assertThat(results.get(0).has("problem")).isFalse();
		assertEntryProblem(results.get(1), 404, "not_found");
		assertEntryProblem(results.get(2), 409, "open_children");
		assertEntryProblem(results.get(3), 409, "epoch_mismatch");
		assertThat(results.get(3).path("problem").path("currentEpoch").asLong()).isEqualTo(1);
		assertThat(results.get(4).path("status").asInt()).isEqualTo(200);
		assertThat(results.get(4).has("lease")).isTrue();
		assertThat(status(dependency)).isEqualTo("completed");
		assertThat(status(dependent)).isEqualTo("ready");
		assertThat(item(plain).path("result").size()).isEqualTo(2);
		assertThat(status(parent)).isEqualTo("leased");
	}

	@Test
	void batchCompletionOfManyCurrentAndStaleLeasesFromManyThreadsKeepsEveryAnswerApart() {
		int threads = 8;
		int perThread = 25;
		List<JsonNode> claims = new ArrayList<>();
		for (int i = 0; i < threads * perThread; i++) {
			createItem("item " + i);
		}
		Api.Response claimed = this.api.post("/claims/batch", Map.of("workerId", "batcher", "limit", 500));
		assertCreated(claimed);
		claimed.body().path("claims").forEach(claims::add);
		assertThat(claims).hasSize(threads * perThread);
		List<Api.Response> answers = Concurrently.run(threads, (t) -> {
			List<Map<String, Object>> entries = new ArrayList<>();
			for (int i = t * perThread; i < (t + 1) * perThread; i++) {
				// Every third entry is stale.
				entries.add(Map.of("leaseId", leaseId(claims.get(i)), "epoch",
						epoch(claims.get(i)) + ((i % 3 == 0) ? 1 : 0)));
			}
			return this.api.post("/completions", Map.of("completions", entries));
		});
		for (int t = 0; t < threads; t++) {
			assertOk(answers.get(t));
			JsonNode results = answers.get(t).body().path("results");
			for (int k = 0; k < perThread; k++) {
				int i = t * perThread + k;
				assertThat(results.get(k).path("leaseId").asString()).isEqualTo(leaseId(claims.get(i)).toString());
				assertThat(results.get(k).path("status").asInt()).isEqualTo((i % 3 == 0) ? 409 : 200);
			}
		}
		long stale = (threads * perThread + 2) / 3;
		assertThat(count("select count(*) from work_items where status = 'completed'"))
			.isEqualTo(threads * perThread - stale);
		assertThat(count("select count(*) from leases")).isEqualTo(stale);
	}

	@Test
	void completionsCommittedTogetherUnblockParentsAndDependents() {
		UUID parent = createItem("parent", "queue", "parent");
		UUID child = createItem("child", "queue", "c", "parentId", parent);
		UUID dependency = createItem("dependency", "queue", "d");
		UUID dependent = createItem("dependent", "queue", "e", "dependsOn", List.of(dependency));
		UUID sibling = createItem("sibling", "queue", "c", "parentId", parent);
		assertThat(status(parent)).isEqualTo("blocked");
		assertThat(status(dependent)).isEqualTo("blocked");
		JsonNode childClaim = claimFrom("c", "worker-1");
		JsonNode siblingClaim = claimFrom("c", "worker-1");
		JsonNode dependencyClaim = claimFrom("d", "worker-2");
		Api.Response response = this.api.post("/completions", Map.of("completions",
				List.of(entry(childClaim, "c"), entry(dependencyClaim, 42), entry(siblingClaim, Map.of()))));
		assertOk(response);
		response.body().path("results").forEach((result) -> assertThat(result.path("status").asInt()).isEqualTo(200));
		assertThat(List.of(child, sibling, dependency))
			.allSatisfy((id) -> assertThat(status(id)).isEqualTo("completed"));
		assertThat(item(dependency).path("result").asInt()).isEqualTo(42);
		assertThat(status(parent)).isEqualTo("ready");
		assertThat(item(parent).path("blockers").path("openChildren").asInt()).isZero();
		assertThat(status(dependent)).isEqualTo("ready");
		// One transaction for the three.
		assertThat(count("select count(distinct xmin::text) from lease_history")).isEqualTo(1);
	}

	@Test
	void aCompletionThatFailsInTheDatabaseFailsAloneAndTheOthersOfItsBatchCommit() {
		this.jdbc.sql("""
				create function poison() returns trigger language plpgsql as $$
				begin
				    if new.status = 'completed' and new.title = 'poison' then
				        raise exception 'poisoned item %', new.id using errcode = '23514';
				    end if;
				    return new;
				end $$
				""").update();
		this.jdbc.sql("create trigger poison before update on work_items for each row execute function poison()")
			.update();
		List<JsonNode> claims = new ArrayList<>();
		for (String title : List.of("good 1", "poison", "good 2")) {
			createItem(title, "queue", title.replace(' ', '-'));
			claims.add(claimFrom(title.replace(' ', '-'), "worker"));
		}
		Api.Response response = this.api.post("/completions",
				Map.of("completions", claims.stream().map((claim) -> entry(claim, Map.of("ok", true))).toList()));
		assertOk(response);
		JsonNode results = response.body().path("results");
		assertThat(results.get(0).path("status").asInt()).isEqualTo(200);
		assertThat(results.get(1).path("status").asInt()).isEqualTo(500);
		assertThat(results.get(1).path("problem").path("code").asString()).isEqualTo("internal_error");
		assertThat(results.get(2).path("status").asInt()).isEqualTo(200);
		assertThat(status(itemId(claims.get(0)))).isEqualTo("completed");
		assertThat(status(itemId(claims.get(1)))).isEqualTo("leased");
		assertThat(status(itemId(claims.get(2)))).isEqualTo("completed");
		// The same through single completes committed together.
		createItem("good 3", "queue", "g3");
		JsonNode good = claimFrom("g3", "worker");
		List<Api.Response> together = Concurrently.run(2,
				(i) -> complete((i == 0) ? good : claims.get(1), Map.of("ok", true)));
		assertOk(together.get(0));
		assertProblem(together.get(1), 500, "internal_error");
	}

	@Test
	void batchCompletionRequestsAreValidatedAsAWhole() {
		createItem("held");
		JsonNode claim = claim("worker");
		assertProblem(this.api.post("/completions", Map.of("completions", List.of())), 422, "validation_failed");
		assertProblem(this.api.post("/completions", Map.of()), 422, "validation_failed");
		assertProblem(
				this.api.post("/completions",
						Map.of("completions", List.of(Map.of("leaseId", "not-a-uuid", "epoch", 1)))),
				422, "validation_failed");
		assertProblem(this.api.post("/completions", Map.of("completions", List.of(Map.of("leaseId", leaseId(claim))))),
				422, "validation_failed");
		List<Map<String, Object>> tooMany = new ArrayList<>();
		for (int i = 0; i < 501; i++) {
			tooMany.add(Map.of("leaseId", UUID.randomUUID(), "epoch", 1));
		}
		assertProblem(this.api.post("/completions", Map.of("completions", tooMany)), 422, "validation_failed");
		assertThat(status(itemId(claim))).isEqualTo("leased");
	}

	@Test
	void batchClaimsRankAsIfMadeOneAfterTheOtherAndAnswer204WhenNothingIsReady() {
		for (int i = 0; i < 5; i++) {
			createItem("batch " + i, "queue", "batch", "priority", i);
		}
		createItem("elsewhere", "queue", "other", "priority", 100);
		Api.Response first = this.api.post("/claims/batch",
				Map.of("workerId", "w", "queues", List.of("batch"), "limit", 3, "leaseSeconds", 60));
		assertCreated(first);
		List<JsonNode> claims = new ArrayList<>();
		first.body().path("claims").forEach(claims::add);
		assertThat(claims).extracting((claim) -> claim.path("item").path("title").asString())
			.containsExactly("batch 4", "batch 3", "batch 2");
		assertThat(claims).allSatisfy((claim) -> {
			assertThat(claim.path("lease").path("workerId").asString()).isEqualTo("w");
			assertThat(claim.path("lease").path("epoch").asLong()).isEqualTo(1);
			assertThat(claim.path("item").path("status").asString()).isEqualTo("leased");
			assertThat(claim.path("item").path("lease").path("id").asString())
				.isEqualTo(claim.path("lease").path("id").asString());
		});
		assertThat(claims.stream().map((claim) -> claim.path("lease").path("id").asString()).distinct()).hasSize(3);
		Api.Response rest = this.api.post("/claims/batch",
				Map.of("workerId", "w", "queues", List.of("batch"), "limit", 10));
		assertThat(rest.body().path("claims").size()).isEqualTo(2);
		Api.Response none = this.api.post("/claims/batch",
				Map.of("workerId", "w", "queues", List.of("batch"), "limit", 10));
		assertThat(none.status()).isEqualTo(204);
		assertThat(count("select count(*) from leases")).isEqualTo(5);
	}

	@Test
	void batchClaimsFromManyThreadsNeverShareAnItem() {
		for (int i = 0; i < 300; i++) {
			createItem("item " + i);
		}
		List<Api.Response> answers = Concurrently.run(12,
				(i) -> this.api.post("/claims/batch", Map.of("workerId", "w" + i, "limit", 40)));
		List<String> items = new ArrayList<>();
		for (Api.Response answer : answers) {
			assertThat(answer.status()).isIn(201, 204);
			if (answer.status() == 201) {
				answer.body().path("claims").forEach((claim) -> items.add(claim.path("item").path("id").asString()));
			}
		}
		assertThat(items).doesNotHaveDuplicates().hasSize(300);
	}

	@Test
	void batchClaimRequestsAreValidated() {
		createItem("ready");
		assertProblem(this.api.post("/claims/batch", Map.of("workerId", "w")), 422, "validation_failed");
		assertProblem(this.api.post("/claims/batch", Map.of("workerId", "w", "limit", 0)), 422, "validation_failed");
		assertProblem(this.api.post("/claims/batch", Map.of("workerId", "w", "limit", 501)), 422, "validation_failed");
		assertProblem(this.api.post("/claims/batch", Map.of("limit", 1)), 422, "validation_failed");
		assertProblem(this.api.post("/claims/batch", Map.of("workerId", "w", "limit", 1, "leaseSeconds", 0)), 422,
				"validation_failed");
		assertProblem(this.api.post("/claims/batch", Map.of("workerId", "w", "limit", 1, "waitSeconds", 61)), 422,
				"validation_failed");
		assertProblem(this.api.post("/claims/batch", Map.of("workerId", "w", "limit", 1, "waitSeconds", -1)), 422,
				"validation_failed");
		assertProblem(this.api.post("/claims/batch", Map.of("workerId", "w", "limit", 1, "queues", List.of())), 422,
				"validation_failed");
		assertThat(count("select count(*) from leases")).isZero();
		assertCreated(this.api.post("/claims/batch", Map.of("workerId", "w", "limit", 1, "waitSeconds", 0)));
	}

	@Test
	void aWaitingBatchClaimIsWokenWhenItemsBecomeReadyAndAnswers204WhenNoneDo() throws Exception {
		Api.Response empty = this.api.post("/claims/batch",
				Map.of("workerId", "w", "limit", 5, "queues", List.of("late"), "waitSeconds", 1));
		assertThat(empty.status()).isEqualTo(204);
		ExecutorService background = Executors.newVirtualThreadPerTaskExecutor();
		try {
			Future<Api.Response> waiting = background.submit(() -> this.api.post("/claims/batch",
					Map.of("workerId", "w", "limit", 5, "queues", List.of("late"), "waitSeconds", 30)));
			Thread.sleep(300);
			assertThat(waiting.isDone()).isFalse();
			UUID item = createItem("arrives while the batch waits", "queue", "late");
			Api.Response claimed = waiting.get(10, TimeUnit.SECONDS);
			assertCreated(claimed);
			assertThat(claimed.body().get("claims")).hasSize(1);
			assertThat(claimed.body().get("claims").get(0).get("item").get("id").asString()).isEqualTo(item.toString());
		}
		finally {
			background.shutdownNow();
		}
	}

	private static Map<String, Object> entry(JsonNode claim, Object result) {
		Map<String, Object> entry = new java.util.LinkedHashMap<>();
		entry.put("leaseId", leaseId(claim));
		entry.put("epoch", epoch(claim));
		entry.put("result", result);
		return entry;
	}

	private static void assertEntryProblem(JsonNode result, int status, String code) {
		assertThat(result.path("status").asInt()).as(result.toString()).isEqualTo(status);
		assertThat(result.has("lease")).isFalse();
		JsonNode problem = result.path("problem");
		assertThat(problem.path("code").asString()).isEqualTo(code);
		assertThat(problem.path("status").asInt()).isEqualTo(status);
		assertThat(problem.path("type").asString()).isNotBlank();
		assertThat(problem.path("title").asString()).isNotBlank();
		assertThat(problem.path("detail").asString()).isNotBlank();
	}

	/** Creates {@code count} items, each claimed by a worker of its own, in order. */
	private List<JsonNode> claimedItems(int count) {
		List<JsonNode> claims = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			createItem("item " + i);
			claims.add(claim("worker-" + i));
		}
		return claims;
	}

}
