package dev.workgraph.lease.ending;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST /leases/{id}/decompose}: children created atomically under the item, the
 * lease ended as decomposed, the parent blocked until every child is terminal; every bad
 * request refused without writing anything.
 */
class DecompositionTests extends LeaseTestSupport {

	@Test
	void decomposeCreatesTheChildrenAndBlocksTheParentUntilTheyAreTerminal() {
		UUID existing = createItem("existing prerequisite", "queue", "elsewhere");
		UUID parent = createItem("build the house", "priority", 7, "queue", "construction");
		JsonNode claim = claimFrom("construction", "architect");
		Api.Response decomposed = this.api.post("/leases/" + leaseId(claim) + "/decompose",
				Map.of("epoch", 1, "reason", "too big for one go", "children",
						List.of(child("foundation", "description", "dig first", "metadata", Map.of("depth", 2)),
								child("walls", "dependsOn", List.of("foundation", existing.toString())),
								child("paint", "priority", -3, "queue", "finishing", "dependsOn", List.of("walls")))));
		assertCreated(decomposed);
		JsonNode lease = decomposed.body().path("lease");
		assertThat(lease.path("outcome").asString()).isEqualTo("decomposed");
		assertThat(lease.path("reason").asString()).isEqualTo("too big for one go");
		assertThat(lease.path("active").asBoolean()).isFalse();
		JsonNode item = decomposed.body().path("item");
		assertThat(item.path("id").asString()).isEqualTo(parent.toString());
		assertThat(item.path("status").asString()).isEqualTo("blocked");
		assertThat(item.path("blockers").path("openChildren").asInt()).isEqualTo(3);
		assertThat(item.path("children")).hasSize(3);
		JsonNode children = decomposed.body().path("children");
		assertThat(children).hasSize(3);
		JsonNode foundation = children.get(0);
		JsonNode walls = children.get(1);
		JsonNode paint = children.get(2);
		assertThat(foundation.path("title").asString()).isEqualTo("child foundation");
		assertThat(foundation.path("description").asString()).isEqualTo("dig first");
		assertThat(foundation.path("metadata").path("depth").asInt()).isEqualTo(2);
		assertThat(foundation.path("status").asString()).isEqualTo("ready");
		for (JsonNode child : children) {
			assertThat(child.path("parentId").asString()).isEqualTo(parent.toString());
			assertThat(child.path("epoch").asLong()).isZero();
		}
		// Inherited unless given.
		assertThat(foundation.path("priority").asInt()).isEqualTo(7);
		assertThat(foundation.path("queue").asString()).isEqualTo("construction");
		assertThat(walls.path("priority").asInt()).isEqualTo(7);
		assertThat(walls.path("queue").asString()).isEqualTo("construction");
		assertThat(paint.path("priority").asInt()).isEqualTo(-3);
		assertThat(paint.path("queue").asString()).isEqualTo("finishing");
		assertThat(walls.path("status").asString()).isEqualTo("blocked");
		assertThat(walls.path("blockers").path("unmetDependencies").asInt()).isEqualTo(2);
		assertThat(ids(walls.path("dependsOn"))).containsExactlyInAnyOrder(uuid(foundation.path("id")), existing);
		assertThat(ids(paint.path("dependsOn"))).containsExactly(uuid(walls.path("id")));
		nothingToClaim(Map.of("workerId", "w", "queues", List.of("finishing")));

		assertOk(complete(claimFrom("construction", "digger"), Map.of("depth", "2m")));
		assertOk(complete(claimFrom("elsewhere", "supplier")));
		assertOk(complete(claimFrom("construction", "mason"), "walls up"));
		assertThat(status(parent)).isEqualTo("blocked");
		Instant beforeLast = databaseNow();
		assertOk(complete(claimFrom("finishing", "painter"), List.of("white")));
		JsonNode ready = item(parent);
		assertThat(ready.path("status").asString()).isEqualTo("ready");
		assertThat(instant(ready.path("readySince"))).isAfterOrEqualTo(beforeLast);
		JsonNode next = claimFrom("construction", "inspector");
		assertThat(itemId(next)).isEqualTo(parent);
		assertThat(epoch(next)).isEqualTo(2);
		assertThat(next.path("item").path("children")).extracting((child) -> child.path("result").toString())
			.containsExactly("{\"depth\":\"2m\"}", "\"walls up\"", "[\"white\"]");
		assertOk(complete(next));
	}

	@Test
	void childrenDependingOnCompletedItemsStartReady() {
		UUID done = createItem("done");
		assertOk(complete(claim("w")));
		createItem("parent");
		JsonNode claim = claim("planner");
		Api.Response decomposed = decompose(claim, List.of(child("a", "dependsOn", List.of(done.toString()))));
		assertCreated(decomposed);
		JsonNode a = decomposed.body().path("children").get(0);
		assertThat(a.path("status").asString()).isEqualTo("ready");
		assertThat(a.path("blockers").path("unmetDependencies").asInt()).isZero();
		assertThat(ids(a.path("dependsOn"))).containsExactly(done);
	}

	@Test
	void parentBecomesReadyWhenItsChildrenAreCancelledToo() {
		UUID parent = createItem("parent");
		JsonNode claim = claim("planner");
		JsonNode children = decompose(claim, List.of(child("a"), child("b"))).body().path("children");
		assertOk(complete(claim("w")));
		assertThat(status(parent)).isEqualTo("blocked");
		assertOk(operatorCancel(uuid(children.get(1).path("id")), "not needed"));
		assertThat(status(parent)).isEqualTo("ready");
	}

	@Test
	void aThousandChildrenAreCreatedInOneRequest() {
		UUID parent = createItem("parent");
		JsonNode claim = claim("planner");
		List<Map<String, Object>> children = IntStream.range(0, 1000)
			.mapToObj((i) -> child("k" + i, "dependsOn", (i == 0) ? List.of() : List.of("k" + (i - 1))))
			.toList();
		Api.Response decomposed = decompose(claim, children);
		assertCreated(decomposed);
		assertThat(decomposed.body().path("children")).hasSize(1000);
		assertThat(item(parent).path("blockers").path("openChildren").asInt()).isEqualTo(1000);
		assertThat(count("select count(*) from dependencies")).isEqualTo(999);
		// The chain unblocks one child at a time.
		JsonNode first = claim("w");
		assertThat(first.path("item").path("title").asString()).isEqualTo("child k0");
		nothingToClaim();
	}

	@ParameterizedTest
	@ValueSource(ints = { 0, 1001 })
	void childCountOutsideOneToAThousandIsRejected(int count) {
		createItem("parent");
		JsonNode claim = claim("planner");
		Map<String, Object> before = fingerprint();
		List<Map<String, Object>> children = IntStream.range(0, count).mapToObj((i) -> child("k" + i)).toList();
		assertProblem(decompose(claim, children), 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"epoch\": 1}", "{\"epoch\": 1, \"children\": null}",
			"{\"epoch\": 1, \"children\": [null]}", "{\"epoch\": 1, \"children\": [{\"title\": \"no key\"}]}",
			"{\"epoch\": 1, \"children\": [{\"key\": \"\", \"title\": \"empty key\"}]}",
			"{\"epoch\": 1, \"children\": [{\"key\": \"a\"}]}",
			"{\"epoch\": 1, \"children\": [{\"key\": \"a\", \"title\": \"\"}]}",
			"{\"epoch\": 1, \"children\": [{\"key\": \"a\", \"title\": \"t\", \"priority\": 1001}]}",
			"{\"epoch\": 1, \"children\": [{\"key\": \"a\", \"title\": \"t\", \"queue\": \"Bad Queue\"}]}",
			"{\"epoch\": 1, \"children\": [{\"key\": \"a\", \"title\": \"t\", \"metadata\": [1]}]}",
			"{\"epoch\": 1, \"children\": [{\"key\": \"a\", \"title\": \"t\", \"dependsOn\": [\"nonsense\"]}]}",
			"{\"epoch\": 1, \"children\": [{\"key\": \"a\", \"title\": \"t\", \"parentId\": null}]}",
			"{\"epoch\": 1, \"children\": [{\"key\": \"a\", \"title\": \"t\"}, {\"key\": \"a\", \"title\": \"u\"}]}",
			"{\"epoch\": 1, \"reason\": 5, \"children\": [{\"key\": \"a\", \"title\": \"t\"}]}" })
	void invalidDecomposeRequestsAreRejectedAndNothingWritten(String body) {
		createItem("parent");
		JsonNode claim = claim("planner");
		Map<String, Object> before = fingerprint();
		assertProblem(this.api.post("/leases/" + leaseId(claim) + "/decompose", body), 422, "validation_failed");
		assertThat(fingerprint()).isEqualTo(before);
		// The lease survived the bad request.
		assertCreated(decompose(claim, List.of(child("a"))));
	}

	@Test
	void keysMayBeAHundredCharactersButNotMore() {
		createItem("parent");
		JsonNode claim = claim("planner");
		assertProblem(decompose(claim, List.of(child("k".repeat(101)))), 422, "validation_failed");
		assertCreated(decompose(claim, List.of(child("k".repeat(100)))));
	}

	@Test
	void siblingCycleIsRejectedAndNothingWritten() {
		createItem("parent");
		JsonNode claim = claim("planner");
		Map<String, Object> before = fingerprint();
		Api.Response rejected = decompose(claim, List.of(child("a", "dependsOn", List.of("c")),
				child("b", "dependsOn", List.of("a")), child("c", "dependsOn", List.of("b")), child("d")));
		assertProblem(rejected, 422, "dependency_cycle");
		List<String> cycle = new ArrayList<>();
		rejected.body().path("cycle").forEach((node) -> cycle.add(node.asString()));
		assertThat(cycle).hasSize(4).containsAll(List.of("a", "b", "c"));
		assertThat(cycle.getFirst()).isEqualTo(cycle.getLast());
		assertProblem(decompose(claim, List.of(child("self", "dependsOn", List.of("self")))), 422, "dependency_cycle");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void childDependingOnAnAncestorOfTheParentIsACycle() {
		UUID grandparent = createItem("grandparent");
		JsonNode top = claim("planner");
		UUID parent = uuid(decompose(top, List.of(child("parent"))).body().path("children").get(0).path("id"));
		JsonNode claim = claim("sub-planner");
		assertThat(itemId(claim)).isEqualTo(parent);
		Map<String, Object> before = fingerprint();
		Api.Response onGrandparent = decompose(claim,
				List.of(child("a"), child("b", "dependsOn", List.of("a", grandparent.toString()))));
		assertProblem(onGrandparent, 422, "dependency_cycle");
		assertThat(onGrandparent.body().path("cycle").toString()).contains(grandparent.toString())
			.contains(parent.toString());
		assertProblem(decompose(claim, List.of(child("a", "dependsOn", List.of(parent.toString())))), 422,
				"dependency_cycle");
		assertThat(fingerprint()).isEqualTo(before);
		assertCreated(decompose(claim, List.of(child("fine"))));
	}

	@Test
	void childDependingOnAnItemThatWaitsForTheParentIsACycle() {
		UUID parent = createItem("parent");
		UUID waiter = createItem("waits for the parent", "dependsOn", List.of(parent));
		JsonNode claim = claim("planner");
		assertThat(itemId(claim)).isEqualTo(parent);
		Map<String, Object> before = fingerprint();
		assertProblem(decompose(claim, List.of(child("a", "dependsOn", List.of(waiter.toString())))), 422,
				"dependency_cycle");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void unknownExistingItemIsNotFoundAndNothingWritten() {
		createItem("parent");
		JsonNode claim = claim("planner");
		UUID unknown = UUID.randomUUID();
		Map<String, Object> before = fingerprint();
		Api.Response rejected = decompose(claim,
				List.of(child("a"), child("b", "dependsOn", List.of("a", unknown.toString()))));
		assertProblem(rejected, 404, "not_found");
		assertThat(rejected.body().path("detail").asString()).contains(unknown.toString());
		assertThat(fingerprint()).isEqualTo(before);
		assertThat(lease(leaseId(claim)).path("active").asBoolean()).isTrue();
	}

	@Test
	void staleLeaseAnswerWinsOverAnUnknownDependency() {
		createItem("parent");
		JsonNode claim = claim("planner");
		assertOk(release(claim));
		Map<String, Object> before = fingerprint();
		Api.Response rejected = decompose(claim,
				List.of(child("a", "dependsOn", List.of(UUID.randomUUID().toString()))));
		assertProblem(rejected, 409, "lease_ended");
		assertThat(fingerprint()).isEqualTo(before);
	}

	@Test
	void decomposingAgainAfterTheFirstChildrenFinishedAddsMoreChildren() {
		UUID parent = createItem("parent");
		JsonNode first = claim("planner");
		UUID firstChild = uuid(decompose(first, List.of(child("a"))).body().path("children").get(0).path("id"));
		assertOk(complete(claim("w"), "a done"));
		JsonNode second = claim("planner");
		assertThat(itemId(second)).isEqualTo(parent);
		// Depending on an earlier, completed child is no cycle: it waits for nothing.
		Api.Response again = decompose(second, List.of(child("a", "dependsOn", List.of(firstChild.toString()))));
		assertCreated(again);
		assertThat(again.body().path("item").path("children")).hasSize(2);
		assertThat(again.body().path("item").path("blockers").path("openChildren").asInt()).isEqualTo(1);
		assertThat(again.body().path("children").get(0).path("status").asString()).isEqualTo("ready");
	}

}
