package dev.workgraph.retention;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Closed trees past retention are removed whole, with their leases' history, checkpoints
 * and attention requests; open trees, trees still referenced and history of open items
 * are never touched, and claims go on meanwhile.
 */
class RetentionTests extends ServiceTest {

	@Autowired
	private Retention retention;

	/** After everything a test created: every item closed so far is past it. */
	private static Instant later() {
		return Instant.now().plusSeconds(2);
	}

	@Test
	void aClosedTreeIsRemovedWholeWithEverythingRecordedAboutIt() {
		UUID root = aClosedTreeWithHistory();
		long items = count("select count(*) from work_items");

		long removed = this.retention.removeClosedBefore(later());

		assertThat(removed).isEqualTo(items).isEqualTo(2);
		for (String table : List.of("work_items", "lease_history", "checkpoints", "attention_requests", "parked_items",
				"dependencies", "work_item_titles")) {
			assertThat(count("select count(*) from " + table)).as(table).isZero();
		}
		assertThat(this.api.get("/items/" + root).status()).isEqualTo(404);
	}

	@Test
	void treesClosedAfterTheCutoffOpenTreesAndReferencedTreesStay() {
		Instant beforeAll = Instant.now().minusSeconds(60);
		UUID closed = aClosedTreeWithHistory();
		UUID open = createItem("open root");
		createItem("open child", "parentId", open);
		UUID referenced = createItem("depended on", "queue", "ref");
		complete(claim(Map.of("workerId", "w", "queues", List.of("ref"))));
		createItem("waiting for it", "dependsOn", List.of(referenced));
		long history = count("select count(*) from lease_history");

		assertThat(this.retention.removeClosedBefore(beforeAll)).as("nothing closed before then").isZero();
		assertThat(this.retention.removeClosedBefore(later())).as("only the unreferenced closed tree").isEqualTo(2);

		assertThat(this.api.get("/items/" + closed).status()).isEqualTo(404);
		assertThat(this.api.get("/items/" + open).status()).isEqualTo(200);
		assertThat(this.api.get("/items/" + referenced).status()).isEqualTo(200);
		assertThat(count("select count(*) from lease_history where item_id = '" + referenced + "'")).isOne();
		assertThat(count("select count(*) from lease_history")).isEqualTo(history - 3);
	}

	@Test
	void historyStaysAppendOnlyForEverythingButRetentionOfClosedItems() {
		UUID item = createItem("open, with history");
		JsonNode lease = claim("w");
		this.api.post("/leases/" + leaseId(lease) + "/release", Map.of("epoch", epoch(lease)));

		assertThatThrownBy(() -> this.jdbc.sql("delete from lease_history").update())
			.isInstanceOf(DataAccessException.class)
			.rootCause()
			.hasMessageContaining("append-only");
		// Even with the retention's setting, an open item's history cannot be removed.
		assertThatThrownBy(() -> this.jdbc.sql("""
				with cutoff as (select set_config('workgraph.retention_cutoff', '2999-01-01', true))
				delete from lease_history where item_id = :item and exists (select 1 from cutoff)
				""").param("item", item).update()).isInstanceOf(DataAccessException.class)
			.rootCause()
			.hasMessageContaining("append-only");
		assertThatThrownBy(() -> this.jdbc.sql("update lease_history set reason = 'x'").update())
			.isInstanceOf(DataAccessException.class)
			.rootCause()
			.hasMessageContaining("append-only");
		assertThat(count("select count(*) from lease_history")).isOne();
	}

	@Test
	void claimsGoOnWhileClosedTreesAreRemoved() throws Exception {
		for (int i = 0; i < 60; i++) {
			complete(claimOf(createItem("old " + i)));
		}
		for (int i = 0; i < 200; i++) {
			createItem("new " + i, "queue", "live");
		}
		Instant cutoff = later();
		ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
		ConcurrentLinkedQueue<UUID> done = new ConcurrentLinkedQueue<>();
		List<Thread> workers = new ArrayList<>();
		for (int w = 0; w < 8; w++) {
			String worker = "live-" + w;
			workers.add(Thread.ofPlatform().start(() -> {
				Api api = new Api(this.port);
				while (true) {
					Api.Response claimed = api.post("/claims", Map.of("workerId", worker, "queues", List.of("live")));
					if (claimed.status() == 204) {
						return;
					}
					if (claimed.status() != 201) {
						failures.add(claimed.toString());
						return;
					}
					Api.Response completed = api.post("/leases/" + leaseId(claimed.body()) + "/complete",
							Map.of("epoch", epoch(claimed.body())));
					if (completed.status() != 200) {
						failures.add(completed.toString());
					}
					done.add(itemId(claimed.body()));
				}
			}));
		}
		long removed = 0;
		while (workers.stream().anyMatch(Thread::isAlive)) {
			removed += this.retention.removeClosedBefore(cutoff);
		}
		for (Thread thread : workers) {
			thread.join();
		}
		removed += this.retention.removeClosedBefore(cutoff);

		assertThat(failures).isEmpty();
		assertThat(done).hasSize(200).doesNotHaveDuplicates();
		// Every item closed before the cutoff is gone: the old ones and the live ones
		// done in time.
		assertThat(count("select count(*) from work_items where closed_at < '" + cutoff + "'")).isZero();
		assertThat(removed).isGreaterThanOrEqualTo(60);
	}

	/**
	 * A root with one child, both completed, with a checkpoint and an attention request.
	 */
	private UUID aClosedTreeWithHistory() {
		UUID root = createItem("root");
		UUID child = createItem("child", "parentId", root);
		JsonNode lease = claimOf(child);
		assertThat(this.api
			.post("/leases/" + leaseId(lease) + "/checkpoints",
					Map.of("epoch", epoch(lease), "data", Map.of("step", 1)))
			.status()).isEqualTo(201);
		Api.Response raised = this.api.post("/leases/" + leaseId(lease) + "/attention-requests",
				Map.of("epoch", epoch(lease), "question", "go on?"));
		assertThat(raised.status()).as(raised.toString()).isEqualTo(201);
		Api.Response resolved = this.api.post("/attention-requests/" + raised.id() + "/resolve",
				Map.of("resolution", "yes", "resolvedBy", "tests"));
		assertThat(resolved.status()).as(resolved.toString()).isEqualTo(200);
		complete(claimOf(child));
		complete(claimOf(root));
		return root;
	}

	private JsonNode claimOf(UUID item) {
		JsonNode claimed = claim("w");
		assertThat(itemId(claimed)).isEqualTo(item);
		return claimed;
	}

}
