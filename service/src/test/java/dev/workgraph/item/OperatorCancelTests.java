package dev.workgraph.item;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code POST /items/{id}/cancel}: the operator's cancel of an item and its subtree. */
class OperatorCancelTests extends GraphTest {

	@Test
	void cancelClosesTheSubtreeEndsItsLeasesAndResolvesItsQuestions() {
		UUID grandparent = createItem("grandparent");
		UUID root = createItem("root", "parentId", grandparent.toString());
		UUID open = createItem("open", "parentId", root.toString());
		UUID asking = createItem("asking", "parentId", open.toString(), "queue", "asking");
		UUID completed = createItem("completed", "parentId", root.toString(), "queue", "completed");
		UUID leased = createItem("leased", "parentId", root.toString(), "queue", "leased");
		completeItem(completed);
		Instant completedAt = instant(item(completed), "closedAt");
		JsonNode askingClaim = claimItem(asking);
		Api.Response blocking = this.api.post("/leases/" + leaseId(askingClaim) + "/attention-requests",
				Map.of("epoch", epoch(askingClaim), "question", "which index?"));
		assertThat(blocking.status()).as(blocking.toString()).isEqualTo(201);
		JsonNode leasedClaim = claimItem(leased);
		Api.Response nonBlocking = this.api.post("/leases/" + leaseId(leasedClaim) + "/attention-requests",
				Map.of("epoch", epoch(leasedClaim), "question", "fyi", "blocking", false));
		assertThat(nonBlocking.status()).as(nonBlocking.toString()).isEqualTo(201);
		assertStatus(asking, "blocked");
		assertBlockers(grandparent, 0, 1, 0);

		Api.Response cancelled = cancel(root, "replanned");

		assertThat(cancelled.status()).as(cancelled.toString()).isEqualTo(200);
		assertThat(cancelled.body().path("id").asString()).isEqualTo(root.toString());
		assertThat(cancelled.body().path("status").asString()).isEqualTo("cancelled");
		for (UUID id : List.of(root, open, asking, leased)) {
			JsonNode item = item(id);
			assertStatus(id, "cancelled");
			assertThat(item.path("cancelReason").asString()).isEqualTo("replanned");
			assertThat(item.path("lease").isNull()).isTrue();
		}
		assertStatus(completed, "completed");
		assertThat(instant(item(completed), "closedAt")).isEqualTo(completedAt);
		assertThat(item(completed).path("cancelReason").isNull()).isTrue();
		// The grandparent lost its only open child.
		assertStatus(grandparent, "ready");
		assertBlockers(grandparent, 0, 0, 0);
		// The active lease ended as cancelled; its holder is fenced off.
		JsonNode leases = this.api.get("/items/" + leased + "/leases").body().path("leases");
		assertThat(leases.size()).isEqualTo(1);
		assertThat(leases.get(0).path("active").asBoolean()).isFalse();
		assertThat(leases.get(0).path("outcome").asString()).isEqualTo("cancelled");
		assertThat(leases.get(0).path("endedAt").isNull()).isFalse();
		Api.Response late = complete(leasedClaim);
		assertThat(late.status()).isEqualTo(409);
		assertThat(late.code()).isEqualTo("lease_ended");
		// Open questions were answered by the system.
		for (UUID id : List.of(asking, leased)) {
			JsonNode request = item(id).path("attentionRequests").get(0);
			assertThat(request.path("status").asString()).isEqualTo("resolved");
			assertThat(request.path("resolvedBy").asString()).isEqualTo("system");
			assertThat(request.path("resolution").asString()).containsIgnoringCase("cancelled");
			assertThat(request.path("resolvedAt").isNull()).isFalse();
		}
		assertBlockers(asking, 0, 0, 0);
		Api.Response open1 = this.api.get("/attention-requests?status=open");
		assertThat(open1.body().path("attentionRequests").size()).isZero();
	}

	@Test
	void cancelWithoutABodyOrReasonIsAccepted() {
		UUID bare = createItem("bare");
		Api.Response noBody = this.api.raw("POST", "/items/" + bare + "/cancel", null, Map.of());
		assertThat(noBody.status()).as(noBody.toString()).isEqualTo(200);
		assertThat(noBody.body().path("cancelReason").isNull()).isTrue();
		UUID empty = createItem("empty");
		Api.Response emptyObject = cancel(empty, null);
		assertThat(emptyObject.status()).as(emptyObject.toString()).isEqualTo(200);
		assertStatus(bare, "cancelled");
		assertStatus(empty, "cancelled");
	}

	@Test
	void cancellingADependencyLeavesDependentsBlockedAndListed() {
		UUID dependency = createItem("dependency");
		UUID dependent = createItem("dependent", "dependsOn", List.of(dependency.toString()));
		assertThat(cancel(dependency, null).status()).isEqualTo(200);
		assertStatus(dependent, "blocked");
		assertThat(item(dependent).path("dependsOn").get(0).path("status").asString()).isEqualTo("cancelled");
	}

	@Test
	void cancellingTheLastOpenChildOfALeasedParentKeepsItLeased() {
		UUID parent = claimable("parent");
		JsonNode claim = claimItem(parent);
		UUID child = createItem("child", "parentId", parent.toString());
		assertStatus(parent, "leased");
		assertBlockers(parent, 0, 1, 0);
		Api.Response blocked = complete(claim);
		assertThat(blocked.code()).isEqualTo("open_children");
		assertThat(cancel(child, null).status()).isEqualTo(200);
		assertStatus(parent, "leased");
		assertBlockers(parent, 0, 0, 0);
		assertThat(complete(claim).status()).isEqualTo(200);
	}

	@Test
	void cancelOfALeasedItemEndsTheLeaseAsCancelled() {
		UUID item = claimable("item");
		JsonNode claim = claimItem(item);
		assertThat(cancel(item, "stop").status()).isEqualTo(200);
		Api.Response lease = this.api.get("/leases/" + leaseId(claim));
		assertThat(lease.body().path("outcome").asString()).isEqualTo("cancelled");
		assertThat(lease.body().path("active").asBoolean()).isFalse();
		Api.Response renew = this.api.post("/leases/" + leaseId(claim) + "/renew", Map.of("epoch", epoch(claim)));
		assertThat(renew.status()).isEqualTo(409);
		assertThat(renew.code()).isEqualTo("lease_ended");
		assertThat(this.api.post("/claims", Map.of("workerId", "w", "queues", List.of("item"))).status())
			.isEqualTo(204);
	}

}
