package dev.workgraph.lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Checkpoints (docs/http-api.md, "Checkpoints"): saved under the current lease only,
 * numbered per item, immutable, handed to the next holder in the claim's answer. The
 * stale cases are in {@link FencingTests} and the other worker's lease in the access
 * tests, with every other lease mutation.
 */
class CheckpointTests extends LeaseTestSupport {

	@Test
	void checkpointsAreNumberedPerItemAndTheLatestIsOnTheItem() {
		UUID itemId = createItem("long job");
		JsonNode claim = claim("worker-1");
		assertThat(claim.path("item").path("checkpoint").isNull()).as(claim.toString()).isTrue();

		JsonNode first = checkpoint(claim, Map.of("page", 1), null);
		assertThat(first.path("checkpoint").path("seq").asLong()).isEqualTo(1);
		assertThat(first.path("checkpoint").path("itemId").asString()).isEqualTo(itemId.toString());
		assertThat(first.path("checkpoint").path("leaseId").asString()).isEqualTo(leaseId(claim).toString());
		assertThat(first.path("checkpoint").path("epoch").asLong()).isEqualTo(1);
		assertThat(first.path("checkpoint").path("workerId").asString()).isEqualTo("worker-1");
		assertThat(first.path("checkpoint").path("data").path("page").asInt()).isEqualTo(1);
		assertThat(instant(first.path("checkpoint").path("createdAt"))).isNotNull();
		assertThat(first.path("lease").path("id").asString()).isEqualTo(leaseId(claim).toString());
		assertThat(first.path("lease").path("renewedAt").isNull()).isTrue();

		JsonNode second = checkpoint(claim, Map.of("page", 2), null);
		assertThat(second.path("checkpoint").path("seq").asLong()).isEqualTo(2);
		JsonNode item = item(itemId);
		assertThat(item.path("checkpoint").path("seq").asLong()).isEqualTo(2);
		assertThat(item.path("checkpoint").path("data").path("page").asInt()).isEqualTo(2);
	}

	@Test
	void theNextHolderGetsTheLatestCheckpointInItsClaimAndCompletionKeepsThem() {
		UUID itemId = createItem("resumable");
		JsonNode claim = claim("worker-1");
		checkpoint(claim, Map.of("done", List.of("a")), null);
		checkpoint(claim, Map.of("done", List.of("a", "b")), null);
		expireLease(leaseId(claim));
		assertThat(reap()).isEqualTo(1);

		JsonNode next = claim("worker-2");
		assertThat(itemId(next)).isEqualTo(itemId);
		JsonNode handed = next.path("item").path("checkpoint");
		assertThat(handed.path("seq").asLong()).isEqualTo(2);
		assertThat(handed.path("workerId").asString()).isEqualTo("worker-1");
		assertThat(handed.path("data").path("done").size()).isEqualTo(2);

		assertThat(
				checkpoint(next, Map.of("done", List.of("a", "b", "c")), null).path("checkpoint").path("seq").asLong())
			.isEqualTo(3);
		assertOk(complete(next, Map.of("ok", true)));
		JsonNode completed = item(itemId);
		assertThat(completed.path("checkpoint").path("seq").asLong()).isEqualTo(3);
		assertThat(completed.path("checkpoint").path("epoch").asLong()).isEqualTo(2);
	}

	@Test
	void renewSecondsRenewsTheLeaseInTheSameTransaction() {
		createItem("slow");
		JsonNode claim = claim("worker-1", 30);
		Instant before = instant(claim.path("lease").path("expiresAt"));
		JsonNode written = checkpoint(claim, Map.of("step", 1), 3600);
		Instant after = instant(written.path("lease").path("expiresAt"));
		assertThat(after).isAfter(before.plusSeconds(3000));
		assertThat(written.path("lease").path("renewedAt").isNull()).isFalse();
		assertThat(instant(lease(leaseId(claim)).path("expiresAt"))).isEqualTo(after);
	}

	@Test
	void theListIsNewestFirstAndPaged() {
		UUID itemId = createItem("many steps");
		JsonNode claim = claim("worker-1");
		for (int step = 1; step <= 5; step++) {
			checkpoint(claim, Map.of("step", step), null);
		}
		List<Long> seqs = new ArrayList<>();
		String cursor = null;
		int pages = 0;
		do {
			Api.Response page = this.api
				.get("/items/" + itemId + "/checkpoints?limit=2" + ((cursor != null) ? "&cursor=" + cursor : ""));
			assertOk(page);
			page.body().path("checkpoints").forEach((c) -> seqs.add(c.path("seq").asLong()));
			cursor = page.body().path("nextCursor").isNull() ? null : page.body().path("nextCursor").asString();
			pages++;
		}
		while (cursor != null);
		assertThat(seqs).containsExactly(5L, 4L, 3L, 2L, 1L);
		assertThat(pages).isEqualTo(3);

		UUID quiet = createItem("never checkpointed");
		Api.Response none = this.api.get("/items/" + quiet + "/checkpoints");
		assertOk(none);
		assertThat(none.body().path("checkpoints").size()).isZero();
		assertThat(none.body().path("nextCursor").isNull()).isTrue();
		assertProblem(this.api.get("/items/" + UUID.randomUUID() + "/checkpoints"), 404, "not_found");
		assertProblem(this.api.get("/items/" + itemId + "/checkpoints?cursor=bm9wZQ"), 422, "validation_failed");
		assertProblem(this.api.get("/items/" + itemId + "/checkpoints?limit=0"), 422, "validation_failed");
		assertProblem(this.api.get("/items/" + itemId + "/checkpoints?limit=501"), 422, "validation_failed");
	}

	@Test
	void checkpointsCannotBeChangedOrRemovedInTheDatabase() {
		createItem("evidence");
		JsonNode claim = claim("worker-1");
		checkpoint(claim, Map.of("step", 1), null);
		for (String statement : List.of("update checkpoints set data = '{}'", "delete from checkpoints",
				"truncate checkpoints")) {
			assertThatThrownBy(() -> this.jdbc.sql(statement).update()).as(statement)
				.rootCause()
				.hasMessageContaining("append-only");
		}
		assertThat(count("select count(*) from checkpoints")).isEqualTo(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"epoch\": 1}", "{\"epoch\": 1, \"data\": null}", "{\"epoch\": 1, \"data\": []}",
			"{\"epoch\": 1, \"data\": \"text\"}", "{\"epoch\": 1, \"data\": 7}", "{\"epoch\": 1, \"data\": true}",
			"{\"epoch\": 1, \"data\": {\"k\": \"nul \\u0000\"}}", "{\"epoch\": 1, \"data\": {\"k\": \"\\ud800\"}}",
			"{\"epoch\": 1, \"data\": {}, \"renewSeconds\": 0}", "{\"epoch\": 1, \"data\": {}, \"renewSeconds\": -5}",
			"{\"epoch\": 1, \"data\": {}, \"renewSeconds\": 86401}",
			"{\"epoch\": 1, \"data\": {}, \"renewSeconds\": 99999999999999}",
			"{\"epoch\": 1, \"data\": {}, \"renewSeconds\": \"60\"}",
			"{\"epoch\": 1, \"data\": {}, \"renewSeconds\": 1.5}", "{\"epoch\": 1, \"data\": {}, \"renewSeconds\": []}",
			"{\"data\": {}}", "{\"epoch\": \"1\", \"data\": {}}" })
	void hostileBodiesAreRefusedAndWriteNothing(String body) {
		createItem("target");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		Api.Response response = this.api.post("/leases/" + leaseId(claim) + "/checkpoints", body);
		assertThat(response.status()).as(response.toString()).isIn(400, 422);
		assertThat(response.code()).isIn("validation_failed", "malformed_request");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void dataOverOneMebibyteIsRefusedAndUpToItIsKept() {
		createItem("big state");
		JsonNode claim = claim("worker-1");
		Map<String, Object> before = fingerprint();
		// {"s":"…"} is 8 bytes around the text.
		Api.Response tooBig = this.api.post("/leases/" + leaseId(claim) + "/checkpoints",
				Map.of("epoch", 1, "data", Map.of("s", "x".repeat(1_048_576 - 7))));
		assertProblem(tooBig, 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
		JsonNode fits = checkpoint(claim, Map.of("s", "x".repeat(1_048_576 - 8)), null);
		assertThat(fits.path("checkpoint").path("data").path("s").asString()).hasSize(1_048_576 - 8);
	}

	/**
	 * Writers race each other and the holder's own completion: every checkpoint that was
	 * acknowledged is stored, numbered without gaps, under the one lease, and a refused
	 * one wrote nothing.
	 */
	@Test
	void concurrentCheckpointsAndAnEndingLeaveOnlyAcknowledgedCheckpointsWrittenUnderTheLiveLease() {
		for (int round = 0; round < 5; round++) {
			UUID itemId = createItem("raced " + round);
			JsonNode claim = claim("worker-1");
			int writers = 8;
			boolean completes = round % 2 == 0;
			List<Integer> statuses = Concurrently.run(writers + 1, (i) -> {
				if (i == writers) {
					return completes ? complete(claim).status() : release(claim).status();
				}
				int written = 0;
				for (int n = 0; n < 5; n++) {
					Api.Response response = this.api.post("/leases/" + leaseId(claim) + "/checkpoints",
							Map.of("epoch", 1, "data", Map.of("writer", i, "n", n)));
					assertThat(response.status()).as(response.toString()).isIn(201, 409);
					written += (response.status() == 201) ? 1 : 0;
				}
				return written;
			});
			assertThat(statuses.getLast()).isEqualTo(200);
			long acknowledged = statuses.subList(0, writers).stream().mapToLong(Integer::longValue).sum();
			assertThat(count("select count(*) from checkpoints where item_id = '" + itemId + "'"))
				.isEqualTo(acknowledged);
			assertThat(count("select coalesce(max(seq), 0) from checkpoints where item_id = '" + itemId + "'"))
				.isEqualTo(acknowledged);
			assertThat(count("select count(*) from checkpoints where item_id = '" + itemId + "' and (lease_id <> '"
					+ leaseId(claim) + "' or epoch <> 1)"))
				.isZero();
			if (!completes) {
				// Released: back to ready for the next round's claim to take.
				assertOk(operatorCancel(itemId, "next round"));
			}
		}
	}

	private JsonNode checkpoint(JsonNode claim, Map<String, Object> data, Integer renewSeconds) {
		Map<String, Object> body = new java.util.HashMap<>(Map.of("epoch", epoch(claim), "data", data));
		if (renewSeconds != null) {
			body.put("renewSeconds", renewSeconds);
		}
		Api.Response response = this.api.post("/leases/" + leaseId(claim) + "/checkpoints", body);
		assertCreated(response);
		return response.body();
	}

}
