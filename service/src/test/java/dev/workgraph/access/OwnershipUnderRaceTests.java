package dev.workgraph.access;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two workers, each with its own token, hammer each other's leases from many threads —
 * with the right lease ids and the right epochs — while each also works its own. Every
 * cross-worker request is refused with 403 {@code forbidden} (before, during and after
 * the holder's own writes), every holder's write succeeds, and afterwards each item's
 * history holds only its holder's lease and writes.
 */
class OwnershipUnderRaceTests extends HostileTest {

	private static final int ITEMS = 60;

	private static final int THREADS_PER_ROLE = 3;

	private static final int ATTACK_ROUNDS = 3;

	private static final String MARK = "intruder";

	@Test
	void crossWorkerWritesAreAllRefusedAndHistoryShowsOnlyTheHolder() {
		String run = Long.toString(System.nanoTime(), 36);
		String queue = "race-" + run;
		Issued alice = issue("race-alice-" + run, "worker", "race-alice-" + run);
		Issued bob = issue("race-bob-" + run, "worker", "race-bob-" + run);
		Api operator = as(issue("race-operator-" + run, "operator", null));
		for (int i = 0; i < ITEMS; i++) {
			Api.Response created = operator.post("/items", Map.of("title", "race item " + i, "queue", queue));
			assertThat(created.status()).as(created.toString()).isEqualTo(201);
		}
		Issued[] workers = { alice, bob };
		List<List<JsonNode>> claimed = Concurrently.run(2, (w) -> claimAll(as(workers[w]), queue));
		assertThat(claimed.get(0).size() + claimed.get(1).size()).isEqualTo(ITEMS);
		assertThat(claimed).allSatisfy((claims) -> assertThat(claims).hasSizeGreaterThanOrEqualTo(5));

		ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
		AtomicInteger attacks = new AtomicInteger();
		// Threads [0, 2k): holders working their own leases; [2k, 4k): attackers.
		Concurrently.run(4 * THREADS_PER_ROLE, (thread) -> {
			boolean attacking = thread >= 2 * THREADS_PER_ROLE;
			int slot = thread % (2 * THREADS_PER_ROLE);
			int worker = slot / THREADS_PER_ROLE;
			int part = slot % THREADS_PER_ROLE;
			if (!attacking) {
				List<JsonNode> own = claimed.get(worker);
				for (int i = part; i < own.size(); i += THREADS_PER_ROLE) {
					work(as(workers[worker]), own.get(i), i, workers[worker].workerId(), wrong);
				}
				return null;
			}
			int victim = 1 - worker;
			List<JsonNode> theirs = claimed.get(victim);
			for (int round = 0; round < ATTACK_ROUNDS; round++) {
				for (int i = part; i < theirs.size(); i += THREADS_PER_ROLE) {
					attack(as(workers[worker]), theirs.get(i), workers[victim].workerId(), attacks, wrong);
				}
			}
			return null;
		});
		assertThat(wrong).as("answers that were not what they must be").isEmpty();
		assertThat(attacks.get()).isEqualTo(ATTACK_ROUNDS * ITEMS * Attack.values().length);

		for (int w = 0; w < 2; w++) {
			List<JsonNode> own = claimed.get(w);
			for (int i = 0; i < own.size(); i++) {
				assertOnlyTheHolderWrote(own.get(i), i, workers[w].workerId());
			}
		}
		assertThat(count("select count(*) from work_items where title like '%" + MARK + "%'")).isZero();
		assertThat(count("select count(*) from attention_requests where question like '%" + MARK + "%'")).isZero();
		assertThat(count("select count(*) from work_items where result::text like '%" + MARK + "%'")).isZero();
	}

	private static List<JsonNode> claimAll(Api worker, String queue) {
		List<JsonNode> claims = new ArrayList<>();
		while (true) {
			Api.Response response = worker.post("/claims", Map.of("queues", List.of(queue)));
			if (response.status() == 204) {
				return claims;
			}
			assertThat(response.status()).as(response.toString()).isEqualTo(201);
			claims.add(response.body());
		}
	}

	/** What the holder does with its i-th lease: renew, then one way of ending it. */
	private static void work(Api holder, JsonNode claim, int i, String workerId, ConcurrentLinkedQueue<String> wrong) {
		String lease = "/leases/" + leaseId(claim);
		long epoch = epoch(claim);
		expect(holder.post(lease + "/renew", Map.of("epoch", epoch, "leaseSeconds", 600)), 200, "holder renews", wrong);
		Api.Response ended = switch (i % 4) {
			case 0 -> holder.post(lease + "/complete", Map.of("epoch", epoch, "result", Map.of("by", workerId)));
			case 1 -> holder.post(lease + "/release", Map.of("epoch", epoch, "reason", "by " + workerId));
			case 2 -> holder.post(lease + "/decompose",
					Map.of("epoch", epoch, "children", List.of(Map.of("key", "a", "title", "child by " + workerId))));
			default -> holder.post(lease + "/attention-requests",
					Map.of("epoch", epoch, "question", "asked by " + workerId, "blocking", true));
		};
		expect(ended, (i % 4 < 2) ? 200 : 201, "holder ends its lease", wrong);
	}

	/** Everything a worker could try on another's lease, with the right id and epoch. */
	enum Attack {

		READ_LEASE, READ_ITEM, READ_ITEM_LEASES, RENEW, COMPLETE, RELEASE, CANCEL, DECOMPOSE, ASK, CLAIM_AS_VICTIM

	}

	private static void attack(Api attacker, JsonNode claim, String victimId, AtomicInteger attacks,
			ConcurrentLinkedQueue<String> wrong) {
		String lease = "/leases/" + leaseId(claim);
		String item = "/items/" + itemId(claim);
		long epoch = epoch(claim);
		for (Attack attack : Attack.values()) {
			Api.Response response = switch (attack) {
				case READ_LEASE -> attacker.get(lease);
				case READ_ITEM -> attacker.get(item);
				case READ_ITEM_LEASES -> attacker.get(item + "/leases");
				case RENEW -> attacker.post(lease + "/renew", Map.of("epoch", epoch, "leaseSeconds", 86400));
				case COMPLETE ->
					attacker.post(lease + "/complete", Map.of("epoch", epoch, "result", Map.of("by", MARK)));
				case RELEASE -> attacker.post(lease + "/release", Map.of("epoch", epoch, "reason", MARK));
				case CANCEL -> attacker.post(lease + "/cancel", Map.of("epoch", epoch, "reason", MARK));
				case DECOMPOSE -> attacker.post(lease + "/decompose",
						Map.of("epoch", epoch, "children", List.of(Map.of("key", "x", "title", MARK + "'s child"))));
				case ASK -> attacker.post(lease + "/attention-requests",
						Map.of("epoch", epoch, "question", MARK + " asks", "blocking", true));
				case CLAIM_AS_VICTIM -> attacker.post("/claims", Map.of("workerId", victimId));
			};
			attacks.incrementAndGet();
			if (response.status() != 403 || !"forbidden".equals(response.code())) {
				wrong.add(attack + " on " + lease + ": " + response);
			}
		}
	}

	private void assertOnlyTheHolderWrote(JsonNode claim, int i, String holder) {
		String item = itemId(claim).toString();
		List<String> leaseWorkers = this.jdbc
			.sql("select worker_id from lease_history where item_id = :item union all "
					+ "select worker_id from leases where item_id = :item")
			.param("item", itemId(claim))
			.query(String.class)
			.list();
		assertThat(leaseWorkers).as("workers of item %s's leases", item).containsExactly(holder);
		String outcome = this.jdbc.sql("select outcome::text from lease_history where lease_id = :lease")
			.param("lease", leaseId(claim))
			.query(String.class)
			.single();
		String expectedOutcome = switch (i % 4) {
			case 0 -> "completed";
			case 1 -> "released";
			case 2 -> "decomposed";
			default -> "attention_requested";
		};
		assertThat(outcome).as("outcome of item %s's lease", item).isEqualTo(expectedOutcome);
		if (i % 4 == 0) {
			assertThat(this.jdbc.sql("select result->>'by' from work_items where id = :item")
				.param("item", itemId(claim))
				.query(String.class)
				.single()).isEqualTo(holder);
		}
	}

	private static void expect(Api.Response response, int status, String what, ConcurrentLinkedQueue<String> wrong) {
		if (response.status() != status) {
			wrong.add(what + ": " + response);
		}
	}

}
