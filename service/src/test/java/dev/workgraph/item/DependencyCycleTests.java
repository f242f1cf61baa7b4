package dev.workgraph.item;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.Database;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait-for graph stays acyclic (docs/http-api.md, "The wait-for graph"): X waits for
 * Y when X depends on Y or X is Y's parent. A change that would close a cycle is 422
 * {@code dependency_cycle} naming the cycle, writes nothing, and concurrent changes can
 * never close one together.
 */
class DependencyCycleTests extends GraphTest {

	@Test
	void dependingOnItselfIsACycle() {
		UUID a = createItem("a");
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		Api.Response rejected = addDependency(a, a);
		assertCycle(rejected, a, a);
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
	}

	@Test
	void oppositeEdgeIsACycle() {
		UUID a = createItem("a");
		UUID b = createItem("b");
		assertThat(addDependency(a, b).status()).isEqualTo(201);
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		assertCycle(addDependency(b, a), b, a, b);
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
		assertStatus(b, "ready");
	}

	@Test
	void edgeClosingALongChainIsACycleNamingEveryItem() {
		UUID a = createItem("a");
		UUID b = createItem("b");
		UUID c = createItem("c");
		UUID d = createItem("d");
		addDependency(a, b);
		addDependency(b, c);
		addDependency(c, d);
		assertCycle(addDependency(d, a), d, a, b, c, d);
		assertCycle(addDependency(c, a), c, a, b, c);
		// A shortcut in the same direction is fine.
		assertThat(addDependency(a, d).status()).isEqualTo(201);
		assertThat(waitForCycles()).isZero();
	}

	@Test
	void childDependingOnItsAncestorIsACycle() {
		UUID grandparent = createItem("grandparent");
		UUID parent = createItem("parent", "parentId", grandparent.toString());
		UUID child = createItem("child", "parentId", parent.toString());
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		assertCycle(addDependency(child, parent), child, parent, child);
		assertCycle(addDependency(child, grandparent), child, grandparent, parent, child);
		assertCycle(addDependency(parent, grandparent), parent, grandparent, parent);
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
	}

	@Test
	void cycleThroughDependenciesAndParenthoodIsDetected() {
		UUID parent = createItem("parent");
		UUID child = createItem("child", "parentId", parent.toString());
		UUID other = createItem("other");
		assertThat(addDependency(child, other).status()).isEqualTo(201);
		// parent waits for child, child for other: other must not wait for parent.
		assertCycle(addDependency(other, parent), other, parent, child, other);
	}

	@Test
	void newChildDependingOnItsParentOrAnAncestorIsACycle() {
		UUID grandparent = createItem("grandparent");
		UUID parent = createItem("parent", "parentId", grandparent.toString());
		UUID waitsForParent = createItem("waits for parent", "dependsOn", List.of(parent.toString()));
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		List<Api.Response> rejected = List.of(
				this.api.post("/items",
						Map.of("title", "own parent", "parentId", parent.toString(), "dependsOn",
								List.of(parent.toString()))),
				this.api.post("/items",
						Map.of("title", "ancestor", "parentId", parent.toString(), "dependsOn",
								List.of(grandparent.toString()))),
				this.api.post("/items", Map.of("title", "indirect", "parentId", parent.toString(), "dependsOn",
						List.of(waitsForParent.toString()))));
		for (Api.Response response : rejected) {
			assertThat(response.status()).as(response.toString()).isEqualTo(422);
			assertThat(response.code()).isEqualTo("dependency_cycle");
			List<String> cycle = cycle(response);
			assertThat(cycle).hasSizeGreaterThanOrEqualTo(3);
			assertThat(cycle.getFirst()).isEqualTo(cycle.getLast()).isEqualTo(parent.toString());
		}
		assertThat(cycle(rejected.get(1))).contains(grandparent.toString());
		assertThat(cycle(rejected.get(2))).contains(waitsForParent.toString());
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
	}

	@Test
	void newChildMayDependOnItsSiblingsAndUnrelatedItems() {
		UUID parent = createItem("parent");
		UUID sibling = createItem("sibling", "parentId", parent.toString());
		UUID unrelated = createItem("unrelated");
		UUID child = createItem("child", "parentId", parent.toString(), "dependsOn",
				List.of(sibling.toString(), unrelated.toString()));
		assertStatus(child, "blocked");
		assertBlockers(child, 2, 0, 0);
		assertBlockers(parent, 0, 2, 0);
	}

	@Test
	void concurrentOppositeEdgesNeverBothSucceed() {
		for (int round = 0; round < 60; round++) {
			UUID a = createItem("a" + round);
			UUID b = createItem("b" + round);
			List<Api.Response> responses = Concurrently
				.run(List.<Callable<Api.Response>>of(() -> addDependency(a, b), () -> addDependency(b, a)));
			assertExactlyOneClosedTheGap(responses, round);
			assertGraphIntact(round);
		}
	}

	@Test
	void concurrentEdgesClosingAFourCycleNeverBothSucceed() {
		for (int round = 0; round < 40; round++) {
			UUID a = createItem("a" + round);
			UUID b = createItem("b" + round);
			UUID c = createItem("c" + round);
			UUID d = createItem("d" + round);
			assertThat(addDependency(b, c).status()).isEqualTo(201);
			assertThat(addDependency(d, a).status()).isEqualTo(201);
			List<Api.Response> responses = Concurrently
				.run(List.<Callable<Api.Response>>of(() -> addDependency(a, b), () -> addDependency(c, d)));
			assertExactlyOneClosedTheGap(responses, round);
			assertGraphIntact(round);
		}
	}

	@Test
	void concurrentChildCreationAndEdgeNeverCloseACycle() {
		for (int round = 0; round < 30; round++) {
			UUID parent = createItem("parent" + round);
			UUID other = createItem("other" + round);
			String title = "child" + round;
			// A new child of parent that depends on other, and other depending on parent:
			// parent -> child -> other -> parent.
			List<Api.Response> responses = Concurrently
				.run(List.<Callable<Api.Response>>of(() -> this.api.post("/items",
						Map.of("title", title, "parentId", parent.toString(), "dependsOn", List.of(other.toString()))),
						() -> addDependency(other, parent)));
			assertExactlyOneClosedTheGap(responses, round);
			assertGraphIntact(round);
		}
	}

	private void assertExactlyOneClosedTheGap(List<Api.Response> responses, int round) {
		assertThat(responses.stream().map(Api.Response::status).sorted().toList()).as("round %d: %s", round, responses)
			.containsExactly(201, 422);
		assertThat(responses.stream().filter((response) -> response.status() == 422).findFirst().orElseThrow().code())
			.isEqualTo("dependency_cycle");
	}

	private void assertGraphIntact(int round) {
		assertThat(waitForCycles()).as("cycles after round %d", round).isZero();
		assertThat(this.audit.run().inconsistencies()).as("audit after round %d", round).isEmpty();
	}

	private static void assertCycle(Api.Response response, UUID... cycle) {
		assertThat(response.status()).as(response.toString()).isEqualTo(422);
		assertThat(response.code()).isEqualTo("dependency_cycle");
		assertThat(response.header("Content-Type")).startsWith("application/problem+json");
		List<String> expected = new ArrayList<>();
		for (UUID id : cycle) {
			expected.add(id.toString());
		}
		assertThat(cycle(response)).isEqualTo(expected);
		assertThat(response.body().path("detail").asString()).contains(cycle[0].toString());
	}

	private static List<String> cycle(Api.Response response) {
		List<String> cycle = new ArrayList<>();
		response.body().path("cycle").forEach((id) -> cycle.add(id.asString()));
		return cycle;
	}

}
