package dev.workgraph.item;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Graph changes racing each other: counters stay exact, and an operator's cancel wins
 * completely. The consistency audit runs after every round.
 */
class GraphConcurrencyTests extends GraphTest {

	static final String OPEN_DESCENDANTS = """
			with recursive subtree(id) as (
			    select id from work_items where parent_id = :root
			    union all
			    select c.id from subtree s join work_items c on c.parent_id = s.id
			)
			select count(*) from subtree s join work_items w on w.id = s.id
			where w.status not in ('completed', 'cancelled')
			""";

	@Test
	void cancelWinsOverChildrenCreatedConcurrentlyUnderTheParent() {
		for (int round = 0; round < 8; round++) {
			UUID parent = createItem("parent" + round);
			UUID existingChild = createItem("existing" + round, "parentId", parent.toString());
			List<Callable<List<Integer>>> tasks = new ArrayList<>();
			for (int t = 0; t < 6; t++) {
				UUID under = (t % 2 == 0) ? parent : existingChild;
				int thread = t;
				tasks.add(() -> {
					List<Integer> statuses = new ArrayList<>();
					for (int i = 0; i < 6; i++) {
						Api.Response created = this.api.post("/items",
								Map.of("title", "child " + thread + "." + i, "parentId", under.toString()));
						statuses.add(created.status());
						if (created.status() == 409) {
							assertThat(created.code()).isEqualTo("item_terminal");
						}
					}
					return statuses;
				});
			}
			long delay = round * 5L;
			tasks.add(() -> {
				Thread.sleep(delay);
				return List.of(cancel(parent, "race").status());
			});
			List<List<Integer>> results = Concurrently.run(tasks);
			assertThat(results.getLast()).containsExactly(200);
			results.subList(0, results.size() - 1)
				.stream()
				.flatMap(List::stream)
				.forEach((status) -> assertThat(status).isIn(201, 409));
			assertStatus(parent, "cancelled");
			assertThat(this.jdbc.sql(OPEN_DESCENDANTS).param("root", parent).query(Long.class).single())
				.as("open descendants of the cancelled parent in round %d", round)
				.isZero();
			assertBlockers(parent, 0, 0, 0);
			assertThat(this.audit.run().inconsistencies()).as("audit after round %d", round).isEmpty();
			// After the cancel, nothing more can be attached.
			Api.Response late = this.api.post("/items", Map.of("title", "late", "parentId", parent.toString()));
			assertThat(late.code()).isEqualTo("item_terminal");
		}
	}

	@Test
	void concurrentCompletionsOfManyDependenciesAndChildrenKeepCountersExact() {
		for (int round = 0; round < 3; round++) {
			int count = 16;
			UUID parent = createItem("parent" + round);
			List<UUID> dependencies = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				dependencies.add(createItem("dependency" + round + "." + i, "parentId", parent.toString(), "queue",
						"q" + round + "-" + i));
			}
			UUID dependent = createItem("dependent" + round, "dependsOn",
					dependencies.stream().map(UUID::toString).toList());
			assertBlockers(dependent, count, 0, 0);
			assertBlockers(parent, 0, count, 0);
			List<JsonNode> claims = dependencies.stream().map(this::claimItem).toList();
			List<Callable<Integer>> completions = claims.stream()
				.<Callable<Integer>>map((claim) -> () -> complete(claim).status())
				.toList();
			assertThat(Concurrently.run(completions)).containsOnly(200);
			assertStatus(dependent, "ready");
			assertBlockers(dependent, 0, 0, 0);
			assertStatus(parent, "ready");
			assertBlockers(parent, 0, 0, 0);
			assertThat(this.audit.run().inconsistencies()).as("audit after round %d", round).isEmpty();
		}
	}

	@Test
	void edgesAddedWhileTheTargetCompletesAreCountedExactly() {
		for (int round = 0; round < 6; round++) {
			UUID target = claimable("target" + round);
			JsonNode claim = claimItem(target);
			List<UUID> dependents = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				dependents.add(createItem("dependent" + round + "." + i));
			}
			List<Callable<Integer>> tasks = new ArrayList<>();
			dependents.forEach((dependent) -> tasks.add(() -> addDependency(dependent, target).status()));
			tasks.add(() -> complete(claim).status());
			assertThat(Concurrently.run(tasks)).containsOnly(201, 200);
			assertStatus(target, "completed");
			for (UUID dependent : dependents) {
				assertStatus(dependent, "ready");
				assertBlockers(dependent, 0, 0, 0);
			}
			assertThat(this.audit.run().inconsistencies()).as("audit after round %d", round).isEmpty();
		}
	}

	@Test
	void cancelRacingCompletionsInsideTheSubtreeLeavesEachItemInExactlyOneEnd() {
		for (int round = 0; round < 5; round++) {
			UUID root = createItem("root" + round);
			UUID middle = createItem("middle" + round, "parentId", root.toString());
			List<JsonNode> claims = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				// Half are children, half grandchildren of the root.
				UUID parent = (i % 2 == 0) ? root : middle;
				UUID child = createItem("child" + round + "." + i, "parentId", parent.toString(), "queue",
						"c" + round + "-" + i);
				claims.add(claimItem(child));
			}
			List<Callable<Api.Response>> tasks = new ArrayList<>();
			claims.forEach((claim) -> tasks.add(() -> complete(claim)));
			tasks.add(() -> cancel(root, "race"));
			List<Api.Response> responses = Concurrently.run(tasks);
			assertThat(responses.getLast().status()).as(responses.getLast().toString()).isEqualTo(200);
			for (int i = 0; i < claims.size(); i++) {
				Api.Response completion = responses.get(i);
				UUID child = itemId(claims.get(i));
				String outcome = this.api.get("/leases/" + leaseId(claims.get(i))).body().path("outcome").asString();
				if (completion.status() == 200) {
					assertStatus(child, "completed");
					assertThat(outcome).isEqualTo("completed");
				}
				else {
					assertThat(completion.code()).as(completion.toString()).isEqualTo("lease_ended");
					assertStatus(child, "cancelled");
					assertThat(outcome).isEqualTo("cancelled");
				}
			}
			assertStatus(root, "cancelled");
			assertStatus(middle, "cancelled");
			assertBlockers(root, 0, 0, 0);
			assertBlockers(middle, 0, 0, 0);
			assertThat(this.audit.run().inconsistencies()).as("audit after round %d", round).isEmpty();
		}
	}

}
