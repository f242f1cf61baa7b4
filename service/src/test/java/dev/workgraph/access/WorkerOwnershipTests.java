package dev.workgraph.access;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.lease.LeaseHolders;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.Database;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker token acts only as its own worker: it claims as itself, works only on leases
 * granted to it (another worker's is 403 before any fencing check, and nothing is
 * written), and reads only the items it holds or held.
 */
class WorkerOwnershipTests extends SecuredServiceTest {

	@Autowired
	private LeaseHolders holders;

	@Test
	void aWorkerTokenClaimsAsItsOwnWorkerAndNoOneElse() {
		itemIn("own");
		Api alice = worker("alice");
		assertThat(alice.post("/claims", Map.of("workerId", "bob", "queues", List.of("own"))).code())
			.isEqualTo("forbidden");
		assertThat(this.operator.post("/claims", Map.of("workerId", "ops", "queues", List.of("own"))).code())
			.isEqualTo("forbidden");
		assertThat(count("select count(*) from leases")).isZero();

		Api.Response claimed = alice.post("/claims", Map.of("queues", List.of("own")));
		assertThat(claimed.status()).as(claimed.toString()).isEqualTo(201);
		assertThat(claimed.body().path("lease").path("workerId").asString()).isEqualTo("alice");
		itemIn("own");
		Api.Response named = alice.post("/claims", Map.of("workerId", "alice", "queues", List.of("own")));
		assertThat(named.status()).isEqualTo(201);
	}

	@Test
	void anotherWorkersLeaseIsForbiddenBeforeFencingAndNothingIsWritten() {
		itemIn("q");
		Api alice = worker("alice");
		Api bob = worker("bob");
		JsonNode claim = alice.post("/claims", Map.of("queues", List.of("q"))).body();
		String lease = "/leases/" + leaseId(claim);
		long epoch = epoch(claim);
		// Bob's token has been used (its lastUsedAt is written once, now).
		assertThat(bob.post("/claims", Map.of("queues", List.of("empty"))).status()).isEqualTo(204);
		Map<String, Object> before = Database.fingerprint(this.jdbc);

		for (long presented : new long[] { epoch, epoch + 7 }) {
			assertThat(codes(bob.post(lease + "/renew", Map.of("epoch", presented)),
					bob.post(lease + "/complete", Map.of("epoch", presented)),
					bob.post(lease + "/release", Map.of("epoch", presented)),
					bob.post(lease + "/cancel", Map.of("epoch", presented)),
					bob.post(lease + "/decompose",
							Map.of("epoch", presented, "children", List.of(Map.of("key", "a", "title", "a")))),
					bob.post(lease + "/attention-requests", Map.of("epoch", presented, "question", "mine now?")),
					bob.post(lease + "/fail", Map.of("epoch", presented, "error", Map.of("mine", true))),
					bob.post(lease + "/checkpoints",
							Map.of("epoch", presented, "data", Map.of("mine", true), "renewSeconds", 600)),
					bob.get(lease)))
				.containsOnly("forbidden");
		}
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
		// Unknown leases stay 404, as without access control.
		assertThat(bob.post("/leases/" + UUID.randomUUID() + "/complete", Map.of("epoch", 1)).code())
			.isEqualTo("not_found");

		// The holder still holds it, and an ended lease stays its holder's only.
		assertThat(alice.get(lease).status()).isEqualTo(200);
		assertThat(alice.post(lease + "/complete", Map.of("epoch", epoch)).status()).isEqualTo(200);
		assertThat(bob.post(lease + "/complete", Map.of("epoch", epoch)).code()).isEqualTo("forbidden");
		assertThat(alice.post(lease + "/complete", Map.of("epoch", epoch)).code()).isEqualTo("lease_ended");
	}

	/**
	 * The holder of a lease is remembered while the lease is active and forgotten once it
	 * ends, however it ends, so that ended leases do not pile up in memory; an ended
	 * lease is still its holder's only (its worker is read again).
	 */
	@Test
	void endedLeasesAreForgottenAndStayTheirHoldersOnly() {
		Api alice = worker("alice");
		Api bob = worker("bob");
		for (String ending : List.of("complete", "release", "cancel", "completions", "chained")) {
			itemIn("ends");
			JsonNode claim = alice.post("/claims", Map.of("queues", List.of("ends"))).body();
			UUID lease = leaseId(claim);
			long epoch = epoch(claim);
			assertThat(this.holders.remembers(lease)).isTrue();
			Api.Response ended = switch (ending) {
				case "completions" -> alice.post("/completions",
						Map.of("completions", List.of(Map.of("leaseId", lease, "epoch", epoch))));
				case "chained" -> alice.post("/leases/" + lease + "/complete",
						Map.of("epoch", epoch, "claimNext", Map.of("queues", List.of("nothing-here"))));
				default -> alice.post("/leases/" + lease + "/" + ending, Map.of("epoch", epoch));
			};
			assertThat(ended.status()).as("%s: %s", ending, ended).isEqualTo(200);
			assertThat(this.holders.remembers(lease)).as(ending).isFalse();
			assertThat(bob.post("/leases/" + lease + "/complete", Map.of("epoch", epoch)).code())
				.isEqualTo("forbidden");
			assertThat(alice.post("/leases/" + lease + "/complete", Map.of("epoch", epoch)).code())
				.isEqualTo("lease_ended");
		}
	}

	/**
	 * {@code claimNext} claims for the lease's holder: an impostor's completion with it
	 * is 403 and claims nothing; the holder's next lease is its own.
	 */
	@Test
	void theNextClaimOfACompletionIsTheHoldersOwn() {
		itemIn("relay");
		itemIn("relay");
		Api alice = worker("alice");
		Api bob = worker("bob");
		JsonNode claim = alice.post("/claims", Map.of("queues", List.of("relay"))).body();
		String complete = "/leases/" + leaseId(claim) + "/complete";
		Map<String, Object> chained = Map.of("epoch", epoch(claim), "claimNext", Map.of("queues", List.of("relay")));
		assertThat(bob.post(complete, chained).code()).isEqualTo("forbidden");
		assertThat(count("select count(*) from leases")).isEqualTo(1);
		assertThat(count("select count(*) from ready_items")).isEqualTo(1);

		Api.Response answer = alice.post(complete, chained);
		assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
		assertThat(answer.body().path("next").path("lease").path("workerId").asString()).isEqualTo("alice");
		String nextLease = "/leases/" + answer.body().path("next").path("lease").path("id").asString();
		assertThat(alice.get(nextLease).status()).isEqualTo(200);
		assertThat(bob.get(nextLease).code()).isEqualTo("forbidden");
	}

	/**
	 * Many impostors race the holder on the same leases: every impostor's call is 403,
	 * every holder's call lands, and the history shows only the holder's outcomes.
	 */
	@Test
	void impostorsRacingTheHolderNeverWrite() {
		int items = 40;
		for (int i = 0; i < items; i++) {
			itemIn("race");
		}
		Api alice = worker("alice");
		Api mallory = worker("mallory");
		List<JsonNode> claims = claimUntilEmpty(alice, Map.of("queues", List.of("race")));
		assertThat(claims).hasSize(items);
		List<String> paths = claims.stream().map((claim) -> "/leases/" + leaseId(claim)).toList();

		List<List<Integer>> results = Concurrently.run(16, (thread) -> {
			List<Integer> statuses = new ArrayList<>();
			for (int i = 0; i < items; i++) {
				int index = (i + thread * 5) % items;
				JsonNode claim = claims.get(index);
				Map<String, Object> body = Map.of("epoch", epoch(claim));
				if (thread % 4 == 0) {
					// The holder: renews, then completes (once only one of its threads
					// can).
					statuses.add(-alice.post(paths.get(index) + "/renew", body).status());
					statuses.add(-alice.post(paths.get(index) + "/complete", body).status());
				}
				else {
					String action = List.of("renew", "complete", "release", "cancel").get((thread + i) % 4);
					statuses.add(mallory.post(paths.get(index) + "/" + action, body).status());
				}
			}
			return statuses;
		});
		for (List<Integer> statuses : results) {
			for (int status : statuses) {
				if (status > 0) {
					assertThat(status).as("an impostor's answer").isEqualTo(403);
				}
				else {
					assertThat(-status).as("the holder's answer").isIn(200, 409);
				}
			}
		}
		assertThat(count("select count(*) from lease_history where outcome = 'completed'")).isEqualTo(items);
		assertThat(count("select count(*) from lease_history")).isEqualTo(items);
		assertThat(count("select count(*) from work_items where status = 'completed'")).isEqualTo(items);
	}

	@Test
	void aWorkerReadsOnlyTheItemsItHoldsOrHeld() {
		UUID held = itemIn("mine");
		UUID other = itemIn("theirs");
		Api alice = worker("alice");
		Api bob = worker("bob");
		JsonNode claim = alice.post("/claims", Map.of("queues", List.of("mine"))).body();
		bob.post("/claims", Map.of("queues", List.of("theirs")));

		assertThat(alice.get("/items/" + held).status()).isEqualTo(200);
		assertThat(alice.get("/items/" + held + "/leases").status()).isEqualTo(200);
		assertThat(codes(alice.get("/items/" + other), alice.get("/items/" + other + "/leases"), alice.get("/items"),
				alice.get("/attention-requests"), alice.post("/items", Map.of("title", "x")),
				alice.post("/items/" + held + "/cancel", Map.of())))
			.containsOnly("forbidden");
		assertThat(alice.get("/items/" + UUID.randomUUID()).code()).isEqualTo("not_found");

		// Held: still readable after the lease ended.
		alice.post("/leases/" + leaseId(claim) + "/release", Map.of("epoch", epoch(claim)));
		assertThat(alice.get("/items/" + held).status()).isEqualTo(200);
		assertThat(alice.get("/leases/" + leaseId(claim)).status()).isEqualTo(200);
		// Operators read every lease.
		assertThat(this.operator.get("/leases/" + leaseId(claim)).status()).isEqualTo(200);
		assertThat(this.operator.get("/items/" + other + "/leases").status()).isEqualTo(200);
	}

}
