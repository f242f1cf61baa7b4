package dev.workgraph.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Adversarial concurrency on one service instance: many workers claiming, several
 * requests ending the same lease, completions racing the reaper, renewals racing
 * completions, claims racing an operator's cancel, completions sharing dependents and
 * parents. Each asserts exactly-once outcomes, no 5xx, and counters equal to a
 * from-scratch recount.
 */
class LeaseConcurrencyTests extends LeaseTestSupport {

	private static final List<Mutation> ENDINGS = List.of(Mutation.COMPLETE, Mutation.RELEASE, Mutation.CANCEL,
			Mutation.DECOMPOSE, Mutation.BLOCKING_ATTENTION_REQUEST);

	@Test
	void thirtyTwoWorkersClaimAThousandItemsAndEachIsClaimedExactlyOnce() {
		UUID parent = createItem("a thousand steps", "queue", "plans");
		JsonNode planner = claimFrom("plans", "planner");
		assertCreated(decompose(planner,
				IntStream.range(0, 1000)
					.mapToObj((i) -> child("k" + i, "queue", "q" + (i % 3), "priority", i % 5))
					.toList()));
		List<List<JsonNode>> claimedByWorker = Concurrently.run(32, (worker) -> claimUntilEmpty("worker-" + worker,
				(worker % 2 == 0) ? Map.of() : Map.of("queues", List.of("q0", "q1", "q2"))));
		List<JsonNode> claimed = claimedByWorker.stream().flatMap(List::stream).toList();
		assertThat(claimed).hasSize(1000);
		assertThat(claimed.stream().map((claim) -> itemId(claim)).distinct()).hasSize(1000);
		assertThat(claimed.stream().map((claim) -> leaseId(claim)).distinct()).hasSize(1000);
		assertThat(claimed).allSatisfy((claim) -> assertThat(epoch(claim)).isEqualTo(1));
		assertThat(count("select count(*) from leases")).isEqualTo(1000);
		assertThat(count("select count(*) from ready_items")).isZero();
		assertThat(this.audit.run().inconsistencies()).isEmpty();

		ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
		Concurrently.run(32, (worker) -> {
			for (JsonNode claim : claimedByWorker.get(worker)) {
				Api.Response completed = complete(claim, Map.of("by", worker));
				if (completed.status() != 200) {
					failures.add(completed.toString());
				}
			}
			return null;
		});
		assertThat(failures).isEmpty();
		assertThat(status(parent)).isEqualTo("ready");
		assertThat(count("select count(*) from lease_history where outcome = 'completed'")).isEqualTo(1000);
		assertThat(this.audit.run().inconsistencies()).isEmpty();
	}

	@Test
	void concurrentCompletionsSharingDependentsAndParentsKeepCountersExact() {
		for (int round = 0; round < 2; round++) {
			String work = "work-" + round;
			UUID parent = createItem("parent " + round, "queue", "plans");
			JsonNode planner = claimFrom("plans", "planner");
			// 240 siblings; the last 40 also wait for earlier siblings, so completions
			// unblock items that other workers are claiming at the same moment.
			List<UUID> children = ids(decompose(planner, IntStream.range(0, 240)
				.mapToObj((i) -> (i >= 200) ? child("k" + i, "queue", work, "dependsOn", List.of("k" + (i - 200)))
						: child("k" + i, "queue", work))
				.toList()).body().path("children"));
			UUID collector = createItem("collector " + round, "queue", "after");
			List<UUID> dependents = new ArrayList<>();
			for (int d = 0; d < 5; d++) {
				dependents.add(createItem("dependent " + d, "queue", "after", "parentId", collector, "dependsOn",
						(d % 2 == 0) ? children : children.subList(0, 200)));
			}
			AtomicInteger completed = new AtomicInteger();
			ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
			Concurrently.run(16, (worker) -> {
				while (completed.get() < children.size() && failures.isEmpty()) {
					Api.Response claimed = this.api.post("/claims",
							Map.of("workerId", "worker-" + worker, "queues", List.of(work)));
					if (claimed.status() == 204) {
						Concurrently.sleep(5);
						continue;
					}
					if (claimed.status() != 201) {
						failures.add("claim: " + claimed);
						continue;
					}
					Api.Response done = complete(claimed.body(), Map.of("worker", worker));
					if (done.status() == 200) {
						completed.incrementAndGet();
					}
					else {
						failures.add("complete: " + done);
					}
				}
				return null;
			});
			assertThat(failures).isEmpty();
			assertThat(completed.get()).isEqualTo(children.size());
			assertThat(status(parent)).isEqualTo("ready");
			for (UUID dependent : dependents) {
				JsonNode item = item(dependent);
				assertThat(item.path("status").asString()).isEqualTo("ready");
				assertThat(item.path("blockers").path("unmetDependencies").asInt()).isZero();
			}
			assertThat(item(collector).path("blockers").path("openChildren").asInt()).isEqualTo(5);
			assertThat(this.audit.run().inconsistencies()).isEmpty();
			assertOk(operatorCancel(parent, "round over"));
			assertOk(operatorCancel(collector, "round over"));
		}
	}

	@Test
	void manyRequestsEndingTheSameLeaseAtOnceExactlyOneSucceeds() {
		for (int r = 0; r < 15; r++) {
			int round = r;
			String queue = "round-" + round;
			UUID id = createItem("contested " + round, "queue", queue);
			JsonNode claim = claimFrom(queue, "holder");
			List<Api.Response> responses = Concurrently.run(10,
					(i) -> mutate(ENDINGS.get((i + round) % ENDINGS.size()), leaseId(claim), epoch(claim)));
			List<Integer> winners = IntStream.range(0, responses.size())
				.filter((i) -> responses.get(i).status() / 100 == 2)
				.boxed()
				.toList();
			assertThat(winners).as("%s", responses).hasSize(1);
			for (int i = 0; i < responses.size(); i++) {
				if (!winners.contains(i)) {
					assertProblem(responses.get(i), 409, "lease_ended");
				}
			}
			Mutation winner = ENDINGS.get((winners.getFirst() + round) % ENDINGS.size());
			assertThat(historyRows(id)).isEqualTo(1);
			String outcome = lease(leaseId(claim)).path("outcome").asString();
			String itemStatus = status(id);
			switch (winner) {
				case COMPLETE -> assertThat(List.of(outcome, itemStatus)).containsExactly("completed", "completed");
				case RELEASE -> assertThat(List.of(outcome, itemStatus)).containsExactly("released", "ready");
				case CANCEL -> assertThat(List.of(outcome, itemStatus)).containsExactly("cancelled", "cancelled");
				case DECOMPOSE -> assertThat(List.of(outcome, itemStatus)).containsExactly("decomposed", "blocked");
				case BLOCKING_ATTENTION_REQUEST ->
					assertThat(List.of(outcome, itemStatus)).containsExactly("attention_requested", "blocked");
				default -> throw new IllegalStateException(winner.name());
			}
			assertThat(count("select count(*) from attention_requests where item_id = '" + id + "'"))
				.isEqualTo((winner == Mutation.BLOCKING_ATTENTION_REQUEST) ? 1 : 0);
			assertThat(count("select count(*) from work_items where parent_id = '" + id + "'"))
				.isEqualTo((winner == Mutation.DECOMPOSE) ? 2 : 0);
		}
	}

	@Test
	void completionsAndRenewalsRacingTheReaperAtExpiryEndEachLeaseExactlyOnce() {
		int leases = 40;
		List<UUID> items = new ArrayList<>();
		for (int i = 0; i < leases; i++) {
			items.add(createItem("racing " + i, "queue", "race"));
		}
		List<JsonNode> claims = new ArrayList<>();
		for (int i = 0; i < leases; i++) {
			claims.add(claimFrom("race", "worker-" + i));
		}
		this.jdbc.sql("update leases set expires_at = now() + interval '1500 milliseconds'").update();
		long expiry = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
		AtomicInteger racing = new AtomicInteger(leases);
		AtomicInteger reaped = new AtomicInteger();
		// Completions (even leases) and renewals (odd ones) spread from well before to
		// well after the expiry, a reaper sweeping all along.
		List<Api.Response> responses = Concurrently.run(leases + 1, (i) -> {
			if (i == leases) {
				while (racing.get() > 0) {
					reaped.addAndGet(reap());
					Concurrently.sleep(2);
				}
				return null;
			}
			long at = expiry + TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextLong(-700, 700));
			Concurrently.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(at - System.nanoTime())));
			try {
				return (i % 2 == 0) ? complete(claims.get(i), Map.of("i", i)) : renew(claims.get(i), 600);
			}
			finally {
				racing.decrementAndGet();
			}
		});
		Concurrently.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(expiry - System.nanoTime()) + 10));
		reaped.addAndGet(reap());
		int expired = 0;
		for (int i = 0; i < leases; i++) {
			Api.Response response = responses.get(i);
			JsonNode lease = lease(leaseId(claims.get(i)));
			UUID item = items.get(i);
			if (response.status() == 200 && i % 2 == 0) {
				assertThat(historyRows(item)).isEqualTo(1);
				assertThat(lease.path("outcome").asString()).isEqualTo("completed");
				assertThat(instant(lease.path("endedAt"))).isBefore(instant(lease.path("expiresAt")));
				assertThat(status(item)).isEqualTo("completed");
			}
			else if (response.status() == 200) {
				// Renewed in time: alive, with its new term, and left alone by the
				// reaper.
				assertThat(historyRows(item)).isZero();
				assertThat(lease.path("active").asBoolean()).isTrue();
				assertThat(lease.path("expiresAt").asString()).isEqualTo(response.body().path("expiresAt").asString());
				assertThat(Duration.between(instant(lease.path("renewedAt")), instant(lease.path("expiresAt"))))
					.isEqualTo(Duration.ofSeconds(600));
				assertThat(status(item)).isEqualTo("leased");
			}
			else {
				assertProblem(response, 409, "lease_expired");
				assertThat(historyRows(item)).isEqualTo(1);
				assertThat(lease.path("outcome").asString()).isEqualTo("expired");
				assertThat(lease.path("endedAt").asString()).isEqualTo(lease.path("expiresAt").asString());
				assertThat(status(item)).isEqualTo("ready");
				expired++;
			}
		}
		assertThat(reaped.get()).isEqualTo(expired);
		long renewed = IntStream.range(0, leases).filter((i) -> i % 2 == 1 && responses.get(i).status() == 200).count();
		assertThat(count("select count(*) from leases")).isEqualTo(renewed);
	}

	@Test
	void renewalRacingCompletionNeverRevivesTheLease() {
		for (int round = 0; round < 20; round++) {
			String queue = "round-" + round;
			UUID id = createItem("renew or complete " + round, "queue", queue);
			JsonNode claim = claimFrom(queue, "holder");
			boolean releaseInstead = round % 2 == 1;
			List<Api.Response> responses = Concurrently.run(2, (i) -> {
				if (i == 0) {
					return renew(claim, 600);
				}
				return releaseInstead ? release(claim) : complete(claim, "done");
			});
			assertOk(responses.get(1));
			Api.Response renewed = responses.get(0);
			if (renewed.status() != 200) {
				assertProblem(renewed, 409, "lease_ended");
			}
			JsonNode lease = lease(leaseId(claim));
			assertThat(lease.path("active").asBoolean()).isFalse();
			assertThat(lease.path("outcome").asString()).isEqualTo(releaseInstead ? "released" : "completed");
			assertThat(status(id)).isEqualTo(releaseInstead ? "ready" : "completed");
			assertThat(historyRows(id)).isEqualTo(1);
			assertThat(count("select count(*) from leases where item_id = '" + id + "'")).isZero();
		}
	}

	@Test
	void claimsRacingOperatorCancelsNeverLeaveALiveLeaseOnACancelledItem() {
		UUID parent = createItem("parent", "queue", "plans");
		JsonNode planner = claimFrom("plans", "planner");
		List<UUID> children = ids(
				decompose(planner, IntStream.range(0, 200).mapToObj((i) -> child("k" + i, "queue", "work")).toList())
					.body()
					.path("children"));
		ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
		ConcurrentLinkedQueue<JsonNode> claims = new ConcurrentLinkedQueue<>();
		Concurrently.run(12, (thread) -> {
			if (thread < 8) {
				claims.addAll(claimUntilEmpty("worker-" + thread, Map.of("queues", List.of("work"))));
			}
			else {
				for (int i = thread - 8; i < children.size(); i += 4) {
					Api.Response cancelled = operatorCancel(children.get(i), "descoped");
					if (cancelled.status() != 200) {
						failures.add(cancelled.toString());
					}
				}
			}
			return null;
		});
		assertThat(failures).isEmpty();
		assertThat(
				count("select count(*) from work_items where parent_id = '" + parent + "' and status <> 'cancelled'"))
			.isZero();
		assertThat(count("select count(*) from leases where item_id <> '" + parent + "'")).isZero();
		Set<UUID> claimedItems = new HashSet<>();
		for (JsonNode claim : claims) {
			assertThat(claimedItems.add(itemId(claim))).isTrue();
			JsonNode lease = lease(leaseId(claim));
			assertThat(lease.path("outcome").asString()).isEqualTo("cancelled");
			Instant closedAt = instant(item(itemId(claim)).path("closedAt"));
			assertThat(instant(lease.path("acquiredAt"))).isBeforeOrEqualTo(closedAt);
			assertProblem(complete(claim), 409, "lease_ended");
		}
		assertThat(status(parent)).isEqualTo("ready");
	}

	@Test
	void concurrentClaimsOverSeveralQueuesBothGetAnItemWhenTwoAreReady() {
		// Answering 204 means nothing is ready: a claim must not skip an item that a
		// concurrent claim only looked at and left.
		List<String> answers = new ArrayList<>();
		for (int round = 0; round < 40; round++) {
			List<String> queues = List.of("a-" + round, "b-" + round);
			createItem("a", "queue", queues.get(0));
			createItem("b", "queue", queues.get(1));
			List<Api.Response> responses = Concurrently.run(2,
					(i) -> this.api.post("/claims", Map.of("workerId", "worker-" + i, "queues", queues)));
			responses.forEach((response) -> answers.add(String.valueOf(response.status())));
		}
		assertThat(answers).containsOnly("201");
	}

	@Test
	void concurrentClaimsBothGetAnItemWhenOneIsPreferredForOneOfThem() {
		List<String> answers = new ArrayList<>();
		for (int round = 0; round < 25; round++) {
			String queue = "round-" + round;
			createItem("older", "queue", queue);
			UUID asked = createItem("asked about", "queue", queue, "priority", 1);
			JsonNode claim = claimFrom(queue, "asker");
			assertThat(itemId(claim)).isEqualTo(asked);
			assertCreated(askForAttention(claim, "which one?", true));
			assertOk(resolve(uuid(item(asked).path("attentionRequests").get(0).path("id")), "this one"));
			this.jdbc.sql("update work_items set priority = 0 where id = :id").param("id", asked).update();
			this.jdbc.sql("update ready_items set priority = 0 where item_id = :id").param("id", asked).update();
			List<Api.Response> responses = Concurrently.run(2, (i) -> this.api.post("/claims",
					Map.of("workerId", (i == 0) ? "asker" : "someone-else", "queues", List.of(queue))));
			responses.forEach((response) -> answers.add(String.valueOf(response.status())));
		}
		assertThat(answers).containsOnly("201");
	}

}
