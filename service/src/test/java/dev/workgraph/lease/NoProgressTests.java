package dev.workgraph.lease;

import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The no-progress guard (docs/http-api.md, "No-progress guard"): five leases in a row
 * that end released, failed or expired without a checkpoint, a question, a completion or
 * a decomposition hold the item for a human; answering starts the count afresh.
 */
class NoProgressTests extends LeaseTestSupport {

	@Test
	void fiveLeasesWithoutProgressHoldTheItemNamingThemAndTheirWorkers() {
		UUID item = createItem("spinning");
		for (int i = 1; i <= 4; i++) {
			assertOk(release(claim("worker-" + i)));
			assertThat(status(item)).isEqualTo("ready");
		}
		Api.Response fifth = release(claim("worker-5"));
		assertOk(fifth);
		JsonNode view = fifth.body().path("item");
		assertThat(view.path("status").asString()).isEqualTo("blocked");
		JsonNode request = view.path("attentionRequests").get(0);
		assertThat(request.path("kind").asString()).isEqualTo("no_progress");
		assertThat(request.path("raisedBy").asString()).isEqualTo("system");
		assertThat(request.path("blocking").asBoolean()).isTrue();
		assertThat(request.path("question").asString()).contains("5 leases", "worker-1", "worker-5", "resolve",
				"cancel");
		assertThat(request.path("context").path("leases")).hasSize(5);
		assertThat(request.path("context").path("leases").get(4).path("workerId").asString()).isEqualTo("worker-5");
		assertThat(request.path("leaseId").asString()).isEqualTo(fifth.body().path("lease").path("id").asString());
		nothingToClaim();
	}

	@Test
	void failuresAndExpiriesCountAsLeasesWithoutProgress() {
		UUID item = createItem("stuck");
		assertOk(release(claim("a")));
		assertOk(fail(claim("b")));
		expireLease(leaseId(claim("c")));
		assertThat(reap()).isEqualTo(1);
		assertOk(release(claim("d")));
		expireLease(leaseId(claim("e")));
		assertThat(reap()).isEqualTo(1);
		JsonNode view = item(item);
		assertThat(view.path("status").asString()).isEqualTo("blocked");
		assertThat(view.path("attentionRequests").get(0).path("kind").asString()).isEqualTo("no_progress");
		assertThat(view.path("attentionRequests")).hasSize(1);
	}

	@Test
	void aCheckpointOrAQuestionIsProgress() {
		UUID item = createItem("slow but moving");
		for (int i = 0; i < 4; i++) {
			assertOk(release(claim("w" + i)));
		}
		JsonNode saving = claim("saver");
		assertCreated(this.api.post("/leases/" + leaseId(saving) + "/checkpoints",
				Map.of("epoch", epoch(saving), "data", Map.of("page", 3))));
		assertOk(release(saving));
		for (int i = 0; i < 4; i++) {
			assertOk(release(claim("x" + i)));
		}
		assertThat(status(item)).isEqualTo("ready");
		JsonNode asking = claim("asker");
		assertCreated(askForAttention(asking, "FYI: the upstream is slow", false));
		assertOk(release(asking));
		for (int i = 0; i < 4; i++) {
			assertOk(release(claim("y" + i)));
		}
		assertThat(status(item)).isEqualTo("ready");
		assertOk(release(claim("y4")));
		assertThat(status(item)).isEqualTo("blocked");
	}

	@Test
	void answeringStartsTheCountAfresh() {
		UUID item = createItem("retry after a fix");
		for (int i = 0; i < 5; i++) {
			assertOk(release(claim("w" + i)));
		}
		UUID request = uuid(item(item).path("attentionRequests").get(0).path("id"));
		assertOk(resolve(request, "fixed the credentials"));
		assertThat(status(item)).isEqualTo("ready");
		for (int i = 0; i < 4; i++) {
			assertOk(release(claim("v" + i)));
			assertThat(status(item)).isEqualTo("ready");
		}
		assertOk(release(claim("v4")));
		assertThat(status(item)).isEqualTo("blocked");
		assertThat(item(item).path("attentionRequests")).hasSize(2);
	}

	@Test
	void aStaleWorkerCannotFakeProgress() {
		UUID item = createItem("contested");
		for (int i = 0; i < 4; i++) {
			assertOk(release(claim("w" + i)));
		}
		JsonNode stale = claim("stale");
		expireLease(leaseId(stale));
		// Expired but not yet recorded: its checkpoint is refused and counts for nothing.
		assertProblem(this.api.post("/leases/" + leaseId(stale) + "/checkpoints",
				Map.of("epoch", epoch(stale), "data", Map.of("fake", true))), 409, "lease_expired");
		assertThat(reap()).isEqualTo(1);
		JsonNode view = item(item);
		assertThat(view.path("status").asString()).isEqualTo("blocked");
		assertThat(view.path("attentionRequests").get(0).path("kind").asString()).isEqualTo("no_progress");
		assertThat(count("select count(*) from checkpoints")).isZero();
	}

	@Test
	void aBatchOfReleasesHoldsOnlyTheStalledItem() {
		UUID stalled = createItem("stalled", "priority", 10);
		for (int i = 0; i < 4; i++) {
			assertOk(release(claim("w" + i)));
		}
		UUID fresh = createItem("fresh", "priority", 5);
		JsonNode first = claim("batcher");
		JsonNode second = claim("batcher");
		assertThat(itemId(first)).isEqualTo(stalled);
		assertThat(itemId(second)).isEqualTo(fresh);
		// Concurrent releases are group-committed; each item is judged on its own
		// history.
		java.util.concurrent.CompletableFuture<Api.Response> a = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> release(first));
		java.util.concurrent.CompletableFuture<Api.Response> b = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> release(second));
		assertOk(a.join());
		assertOk(b.join());
		assertThat(status(stalled)).isEqualTo("blocked");
		assertThat(status(fresh)).isEqualTo("ready");
	}

	private Api.Response fail(JsonNode claim) {
		return this.api.post("/leases/" + leaseId(claim) + "/fail",
				Map.of("epoch", epoch(claim), "error", Map.of("message", "boom")));
	}

}
