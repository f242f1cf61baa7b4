package dev.workgraph.item;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.StreamSupport;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fixtures and checks shared by the item graph tests: items that can be claimed one by
 * one (each in its own queue), edges, blockers, and a from-scratch acyclicity check of
 * the wait-for graph.
 */
abstract class GraphTest extends ServiceTest {

	/**
	 * Every cycle in the wait-for graph (X waits for Y: X depends on Y, or X is Y's
	 * parent), found by walking it in SQL independently of the service's own check.
	 */
	static final String WAIT_FOR_CYCLES = """
			with recursive waits(waiter, waited_for) as (
			    select item_id, depends_on_id from dependencies
			    union all
			    select parent_id, id from work_items where parent_id is not null
			), reach(origin, id, depth) as (
			    select waiter, waited_for, 1 from waits
			    union
			    select r.origin, w.waited_for, r.depth + 1
			    from reach r join waits w on w.waiter = r.id
			    where r.depth < 64 and r.id <> r.origin
			)
			select count(*) from reach where id = origin
			""";

	/**
	 * An item alone in a queue named after its title, so it can be claimed on purpose.
	 */
	UUID claimable(String title, Object... keyValues) {
		Object[] withQueue = new Object[keyValues.length + 2];
		withQueue[0] = "queue";
		withQueue[1] = title;
		System.arraycopy(keyValues, 0, withQueue, 2, keyValues.length);
		return createItem(title, withQueue);
	}

	/** Claims exactly this item (made by {@link #claimable}); returns {lease, item}. */
	JsonNode claimItem(UUID id) {
		String queue = item(id).path("queue").asString();
		JsonNode claim = claim(Map.of("workerId", "worker-" + queue, "queues", List.of(queue)));
		assertThat(itemId(claim)).isEqualTo(id);
		return claim;
	}

	/** Claims and completes this item through the lease API. */
	void completeItem(UUID id) {
		Api.Response completed = complete(claimItem(id));
		assertThat(completed.status()).as(completed.toString()).isEqualTo(200);
	}

	Api.Response addDependency(UUID itemId, UUID dependsOn) {
		return this.api.post("/items/" + itemId + "/dependencies", Map.of("dependsOn", dependsOn.toString()));
	}

	Api.Response removeDependency(UUID itemId, UUID dependsOn) {
		return this.api.delete("/items/" + itemId + "/dependencies/" + dependsOn);
	}

	Api.Response cancel(UUID itemId, String reason) {
		return this.api.post("/items/" + itemId + "/cancel", (reason != null) ? Map.of("reason", reason) : Map.of());
	}

	JsonNode blockers(UUID id) {
		return item(id).path("blockers");
	}

	Instant readySince(UUID id) {
		return instant(item(id), "readySince");
	}

	static Instant instant(JsonNode node, String field) {
		JsonNode value = node.path(field);
		return value.isNull() || value.isMissingNode() ? null : Instant.parse(value.asString());
	}

	/** Asserts the three blocker counters of the item. */
	void assertBlockers(UUID id, int unmetDependencies, int openChildren, int openAttentionRequests) {
		JsonNode blockers = blockers(id);
		assertThat(List.of(blockers.path("unmetDependencies").asInt(), blockers.path("openChildren").asInt(),
				blockers.path("openAttentionRequests").asInt()))
			.as("blockers of %s", id)
			.containsExactly(unmetDependencies, openChildren, openAttentionRequests);
	}

	void assertStatus(UUID id, String status) {
		JsonNode item = item(id);
		assertThat(item.path("status").asString()).as("status of %s", id).isEqualTo(status);
		// readySince is set exactly while ready, closedAt exactly while terminal.
		assertThat(instant(item, "readySince") != null).as("readySince set").isEqualTo(status.equals("ready"));
		assertThat(instant(item, "closedAt") != null).as("closedAt set")
			.isEqualTo(status.equals("completed") || status.equals("cancelled"));
	}

	long waitForCycles() {
		return this.jdbc.sql(WAIT_FOR_CYCLES).query(Long.class).single();
	}

	static List<String> ids(JsonNode array) {
		return StreamSupport.stream(array.spliterator(), false).map((node) -> node.path("id").asString()).toList();
	}

}
