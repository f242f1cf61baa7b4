package dev.workgraph.lease.ending;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.item.DependencyCycleDetected;
import dev.workgraph.lease.ending.Decomposition.Plan;
import dev.workgraph.lease.ending.Decomposition.Target;
import dev.workgraph.problem.FieldError;
import dev.workgraph.problem.InvalidRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What decompose checks before touching the database ({@link Decomposition#plan} and
 * {@link Decomposition#siblingCycle}): keys, references, sibling cycles, and ids in
 * request order.
 */
class DecompositionPlanTests {

	private static final UUID EXISTING = UUID.fromString("01890a5d-ac96-7000-8000-000000000001");

	@Test
	void childrenGetIdsInRequestOrderAndReferencesResolveToSiblingsOrItems() {
		Plan plan = Decomposition.plan(List.of(child("schema"), child("backfill", "schema", EXISTING.toString()),
				child("switch", "backfill", "schema", "schema")));
		assertThat(plan.ids()).containsOnlyKeys("schema", "backfill", "switch");
		List<UUID> ids = List.copyOf(plan.ids().values());
		assertThat(ids).isSorted().doesNotHaveDuplicates();
		assertThat(plan.targets().get("backfill")).containsExactly(new Target("schema", null),
				new Target(null, EXISTING));
		assertThat(plan.targets().get("switch")).as("a repeated reference counts once")
			.containsExactly(new Target("backfill", null), new Target("schema", null));
		assertThat(plan.existingTargets()).containsExactly(EXISTING);
	}

	@Test
	void aSiblingKeyWinsOverAnIdThatLooksTheSame() {
		String key = EXISTING.toString();
		Plan plan = Decomposition.plan(List.of(child(key), child("b", key)));
		assertThat(plan.targets().get("b")).containsExactly(new Target(key, null));
		assertThat(plan.existingTargets()).isEmpty();
	}

	@Test
	void repeatedKeysAndUnknownReferencesAreAllReported() {
		assertThatExceptionOfType(InvalidRequest.class)
			.isThrownBy(() -> Decomposition
				.plan(List.of(child("a"), child("a"), child("b", "nope", "a"), child("c", "1-2-3-4-5"))))
			.satisfies((ex) -> assertThat(ex.errors()).containsExactly(
					new FieldError("children[1].key", "repeats the key 'a'"),
					new FieldError("children[2].dependsOn[0]", "is neither the key of a sibling nor an item id"),
					new FieldError("children[3].dependsOn[0]", "is neither the key of a sibling nor an item id")));
	}

	@Test
	void aCycleAmongSiblingsIsRefusedAndNamed() {
		assertThatExceptionOfType(DependencyCycleDetected.class)
			.isThrownBy(
					() -> Decomposition.plan(List.of(child("a", "c"), child("b", "a"), child("c", "b"), child("d"))))
			.satisfies((ex) -> assertThat(ex.properties().get("cycle")).isEqualTo(List.of("a", "c", "b", "a")));
		assertThatExceptionOfType(DependencyCycleDetected.class)
			.isThrownBy(() -> Decomposition.plan(List.of(child("self", "self"))))
			.satisfies((ex) -> assertThat(ex.properties().get("cycle")).isEqualTo(List.of("self", "self")));
	}

	@Test
	void siblingCycleFindsACycleOnlyWhereThereIsOne() {
		Map<String, List<Target>> chain = new LinkedHashMap<>();
		chain.put("a", List.of());
		chain.put("b", List.of(sibling("a"), new Target(null, EXISTING)));
		chain.put("c", List.of(sibling("a"), sibling("b")));
		assertThat(Decomposition.siblingCycle(chain)).isEmpty();

		Map<String, List<Target>> loop = new LinkedHashMap<>(chain);
		loop.put("a", List.of(sibling("c")));
		List<String> cycle = Decomposition.siblingCycle(loop);
		assertThat(cycle).hasSizeGreaterThanOrEqualTo(3);
		assertThat(cycle.getFirst()).isEqualTo(cycle.getLast());
		for (int i = 0; i + 1 < cycle.size(); i++) {
			assertThat(loop.get(cycle.get(i))).as("%s depends on %s", cycle.get(i), cycle.get(i + 1))
				.contains(sibling(cycle.get(i + 1)));
		}
	}

	private static Target sibling(String key) {
		return new Target(key, null);
	}

	private static ChildSpec child(String key, String... dependsOn) {
		return new ChildSpec(key, "child " + key, null, null, null, null, List.of(dependsOn), null, null);
	}

}
