package dev.workgraph.item;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Database;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST /items} and {@code GET /items/{id}} (docs/http-api.md, "Create an item" and
 * "Ids in paths and bodies").
 */
class ItemCreationTests extends GraphTest {

	private static final UUID UNKNOWN = UUID.fromString("01890000-0000-7000-8000-000000000000");

	@Test
	void createdItemAnswers201WithLocationAndDefaults() {
		Api.Response created = this.api.post("/items", Map.of("title", "write the docs"));
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		JsonNode item = created.body();
		assertThat(created.header("Location")).isEqualTo("/items/" + item.path("id").asString());
		assertThat(item.path("title").asString()).isEqualTo("write the docs");
		assertThat(item.path("description").isNull()).isTrue();
		assertThat(item.path("priority").asInt()).isZero();
		assertThat(item.path("queue").asString()).isEqualTo("default");
		assertThat(item.path("metadata").isObject()).isTrue();
		assertThat(item.path("metadata").size()).isZero();
		assertThat(item.path("parentId").isNull()).isTrue();
		assertThat(item.path("result").isNull()).isTrue();
		assertThat(item.path("epoch").asLong()).isZero();
		assertThat(item.path("status").asString()).isEqualTo("ready");
		assertThat(instant(item, "readySince")).isEqualTo(instant(item, "createdAt"));
		assertThat(item.path("closedAt").isNull()).isTrue();
		assertThat(item.path("createdAt").asString()).endsWith("Z");
		// The Location names the item that GET returns.
		assertThat(this.api.get(created.header("Location")).body()).isEqualTo(item);
	}

	@Test
	void createdItemKeepsEveryFieldItWasGiven() {
		JsonNode item = createItem(Map.of("title", "index", "description", "build the search index", "priority", -1000,
				"queue", "search.v2_x-1", "metadata", Map.of("owner", "ana", "tags", List.of("a", "b"))));
		JsonNode read = item(UUID.fromString(item.path("id").asString()));
		assertThat(read.path("description").asString()).isEqualTo("build the search index");
		assertThat(read.path("priority").asInt()).isEqualTo(-1000);
		assertThat(read.path("queue").asString()).isEqualTo("search.v2_x-1");
		assertThat(read.path("metadata").path("owner").asString()).isEqualTo("ana");
		assertThat(read.path("metadata").path("tags").size()).isEqualTo(2);
	}

	@Test
	void itemViewShowsBlockersDependenciesChildrenLeaseAndAttentionRequests() {
		UUID dependency = claimable("dependency");
		UUID parent = createItem("parent", "dependsOn", List.of(dependency.toString()));
		UUID child = createItem("child", "parentId", parent.toString());
		JsonNode view = item(parent);
		assertThat(view.path("blockers").path("unmetDependencies").asInt()).isEqualTo(1);
		assertThat(view.path("blockers").path("openChildren").asInt()).isEqualTo(1);
		assertThat(view.path("blockers").path("openAttentionRequests").asInt()).isZero();
		assertThat(view.path("dependsOn").size()).isEqualTo(1);
		assertThat(view.path("dependsOn").get(0).path("id").asString()).isEqualTo(dependency.toString());
		assertThat(view.path("dependsOn").get(0).path("status").asString()).isEqualTo("ready");
		assertThat(view.path("children").size()).isEqualTo(1);
		JsonNode childView = view.path("children").get(0);
		assertThat(childView.path("id").asString()).isEqualTo(child.toString());
		assertThat(childView.path("title").asString()).isEqualTo("child");
		assertThat(childView.path("status").asString()).isEqualTo("ready");
		assertThat(childView.has("result")).isTrue();
		assertThat(childView.path("result").isNull()).isTrue();
		assertThat(view.path("lease").isNull()).isTrue();
		assertThat(view.path("attentionRequests").isArray()).isTrue();
		assertThat(view.path("attentionRequests").size()).isZero();
		assertThat(item(child).path("parentId").asString()).isEqualTo(parent.toString());
		// The dependency's status in the view follows the dependency.
		completeItem(dependency);
		assertThat(item(parent).path("dependsOn").get(0).path("status").asString()).isEqualTo("completed");
	}

	@Test
	void childrenInheritTheParentsQueueAndPriorityUnlessTheyNameTheirOwn() {
		UUID parent = createItem("release", "queue", "releases", "priority", 10);
		JsonNode inherits = item(createItem("build", "parentId", parent.toString()));
		assertThat(inherits.path("queue").asString()).isEqualTo("releases");
		assertThat(inherits.path("priority").asInt()).isEqualTo(10);
		JsonNode grandchild = item(createItem("compile", "parentId", inherits.path("id").asString()));
		assertThat(grandchild.path("queue").asString()).isEqualTo("releases");
		assertThat(grandchild.path("priority").asInt()).isEqualTo(10);
		JsonNode own = item(createItem("deploy", "parentId", parent.toString(), "queue", "ops", "priority", -3));
		assertThat(own.path("queue").asString()).isEqualTo("ops");
		assertThat(own.path("priority").asInt()).isEqualTo(-3);
		JsonNode zero = item(createItem("notes", "parentId", parent.toString(), "priority", 0));
		assertThat(zero.path("queue").asString()).isEqualTo("releases");
		assertThat(zero.path("priority").asInt()).as("a priority given as 0 is given").isZero();
		JsonNode root = item(createItem("unrelated"));
		assertThat(root.path("queue").asString()).isEqualTo("default");
		assertThat(root.path("priority").asInt()).isZero();
	}

	@Test
	void aChildAddedByPostInheritsAsADecomposedChildDoes() {
		UUID parent = createItem("plan", "queue", "planning", "priority", 7);
		UUID posted = createItem("posted", "parentId", parent.toString());
		JsonNode claim = claim(Map.of("workerId", "planner", "queues", List.of("planning")));
		assertThat(itemId(claim)).as("the child is claimed first; the parent waits for it").isEqualTo(posted);
		Api.Response decomposed = this.api.post("/leases/" + leaseId(claim) + "/decompose",
				Map.of("epoch", epoch(claim), "children", List.of(Map.of("key", "a", "title", "decomposed"))));
		assertThat(decomposed.status()).as(decomposed.toString()).isEqualTo(201);
		JsonNode postedView = item(posted);
		JsonNode grandchild = decomposed.body().path("children").get(0);
		assertThat(grandchild.path("queue").asString()).isEqualTo(postedView.path("queue").asString())
			.isEqualTo("planning");
		assertThat(grandchild.path("priority").asInt()).isEqualTo(postedView.path("priority").asInt()).isEqualTo(7);
	}

	@Test
	void childrenShowTheirResultsOnceCompleted() {
		UUID parent = createItem("parent");
		UUID child = createItem("child", "parentId", parent.toString(), "queue", "child");
		JsonNode claim = claimItem(child);
		Api.Response completed = this.api.post("/leases/" + leaseId(claim) + "/complete",
				Map.of("epoch", epoch(claim), "result", Map.of("pages", 3)));
		assertThat(completed.status()).as(completed.toString()).isEqualTo(200);
		JsonNode childView = item(parent).path("children").get(0);
		assertThat(childView.path("status").asString()).isEqualTo("completed");
		assertThat(childView.path("result").path("pages").asInt()).isEqualTo(3);
	}

	@Test
	void duplicateDependenciesInOneRequestCountOnce() {
		UUID dependency = createItem("dependency");
		UUID item = createItem("item", "dependsOn", List.of(dependency.toString(), dependency.toString()));
		assertBlockers(item, 1, 0, 0);
		assertThat(item(item).path("dependsOn").size()).isEqualTo(1);
	}

	@Test
	void anItemMayDependOnAThousandItemsButNoMore() {
		// One decompose makes a thousand items in one request.
		UUID planner = claimable("planner");
		JsonNode claim = claimItem(planner);
		List<Map<String, Object>> children = new java.util.ArrayList<>();
		for (int i = 0; i < 1001; i++) {
			children.add(Map.of("key", "k" + i, "title", "part " + i));
		}
		Api.Response decomposed = this.api.post("/leases/" + leaseId(claim) + "/decompose",
				Map.of("epoch", epoch(claim), "children", children.subList(0, 1000)));
		assertThat(decomposed.status()).as(decomposed.toString()).isEqualTo(201);
		List<String> parts = ids(decomposed.body().path("children"));
		assertThat(parts).hasSize(1000);
		UUID item = createItem("assemble", "dependsOn", parts);
		assertBlockers(item, 1000, 0, 0);
		List<String> tooMany = new java.util.ArrayList<>(parts);
		tooMany.add(planner.toString());
		Api.Response rejected = this.api.post("/items", Map.of("title", "too many", "dependsOn", tooMany));
		assertThat(rejected.status()).as(rejected.toString()).isEqualTo(422);
		assertThat(rejected.body().path("errors").get(0).path("field").asString()).isEqualTo("dependsOn");
	}

	@Test
	void dependingOnCompletedItemsLeavesTheNewItemReady() {
		UUID done = claimable("done");
		completeItem(done);
		UUID item = createItem("item", "dependsOn", List.of(done.toString()));
		assertStatus(item, "ready");
		assertBlockers(item, 0, 0, 0);
	}

	@Test
	void unknownParentOrDependencyIsNotFoundAndWritesNothing() {
		UUID existing = createItem("existing");
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		Api.Response parent = this.api.post("/items", Map.of("title", "x", "parentId", UNKNOWN.toString()));
		Api.Response dependency = this.api.post("/items",
				Map.of("title", "x", "dependsOn", List.of(existing.toString(), UNKNOWN.toString())));
		Api.Response both = this.api.post("/items",
				Map.of("title", "x", "parentId", existing.toString(), "dependsOn", List.of(UNKNOWN.toString())));
		for (Api.Response response : List.of(parent, dependency, both)) {
			assertThat(response.status()).as(response.toString()).isEqualTo(404);
			assertThat(response.code()).isEqualTo("not_found");
			assertThat(response.raw().body()).contains(UNKNOWN.toString());
		}
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
	}

	@Test
	void malformedIdsInTheBodyAreValidationErrorsNamingTheField() {
		Api.Response parent = this.api.post("/items", Map.of("title", "x", "parentId", "not-a-uuid"));
		Api.Response dependency = this.api.post("/items", Map.of("title", "x", "dependsOn", List.of("123")));
		Api.Response edge = this.api.post("/items/" + createItem("item") + "/dependencies", Map.of("dependsOn", "zzz"));
		assertThat(List.of(parent.status(), dependency.status(), edge.status())).containsOnly(422);
		assertThat(codes(parent, dependency, edge)).containsOnly("validation_failed");
		assertThat(parent.body().path("errors").get(0).path("field").asString()).isEqualTo("parentId");
		assertThat(dependency.body().path("errors").get(0).path("field").asString()).isEqualTo("dependsOn[0]");
		assertThat(edge.body().path("errors").get(0).path("field").asString()).isEqualTo("dependsOn");
	}

	@Test
	void malformedIdsInPathsAreNotFound() {
		UUID item = createItem("item");
		List<Api.Response> responses = List.of(this.api.get("/items/not-a-uuid"), this.api.get("/items/12345"),
				this.api.get("/items/" + item + "0"), this.api.get("/items/not-a-uuid/leases"),
				this.api.post("/items/not-a-uuid/cancel", Map.of()),
				this.api.post("/items/not-a-uuid/dependencies", Map.of("dependsOn", item.toString())),
				this.api.delete("/items/" + item + "/dependencies/not-a-uuid"),
				this.api.delete("/items/not-a-uuid/dependencies/" + item));
		for (Api.Response response : responses) {
			assertThat(response.status()).as(response.toString()).isEqualTo(404);
			assertThat(response.code()).isEqualTo("not_found");
		}
	}

	@Test
	void unknownItemsInPathsAreNotFound() {
		UUID item = createItem("item");
		List<Api.Response> responses = List.of(this.api.get("/items/" + UNKNOWN),
				this.api.get("/items/" + UNKNOWN + "/leases"), this.api.post("/items/" + UNKNOWN + "/cancel", Map.of()),
				addDependency(UNKNOWN, item), addDependency(item, UNKNOWN), removeDependency(UNKNOWN, item),
				removeDependency(item, UNKNOWN));
		for (Api.Response response : responses) {
			assertThat(response.status()).as(response.toString()).isEqualTo(404);
			assertThat(response.code()).isEqualTo("not_found");
		}
	}

	@Test
	void removingAnEdgeThatDoesNotExistIsNotFound() {
		UUID a = createItem("a");
		UUID b = createItem("b");
		Api.Response removed = removeDependency(a, b);
		assertThat(removed.status()).as(removed.toString()).isEqualTo(404);
		assertThat(removed.code()).isEqualTo("not_found");
	}

	@Test
	void leaseHistoryOfANeverClaimedItemIsEmpty() {
		Api.Response leases = this.api.get("/items/" + createItem("never claimed") + "/leases");
		assertThat(leases.status()).isEqualTo(200);
		assertThat(leases.body().path("leases").isArray()).isTrue();
		assertThat(leases.body().path("leases").size()).isZero();
	}

}
