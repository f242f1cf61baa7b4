package dev.workgraph.retention;

import java.sql.Connection;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.workgraph.sql.SqlArrays;
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

	@Autowired
	private ClosedTrees trees;

	@Autowired
	private DataSource dataSource;

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

	@Test
	void aBatchRemovesExactlyItsRemovableTreesAndLeavesTheOthersWhole() throws Exception {
		UUID removable = aClosedTreeWithHistory();
		UUID alsoRemovable = aClosedItem("alone");
		UUID dependedOn = aClosedItem("depended on");
		UUID dependent = aClosedItem("depends on it", "dependsOn", List.of(dependedOn));
		UUID held = aClosedTreeWithHistory();
		UUID heldChild = this.jdbc.sql("select id from work_items where parent_id = :root")
			.param("root", held)
			.query(UUID.class)
			.single();
		UUID open = createItem("open root");
		complete(claimOf(createItem("closed child of an open root", "parentId", open)));
		UUID withOpenDescendant = aClosedItem("closed root, then given an open child");
		Instant cutoff = this.jdbc.sql("select max(closed_at) + interval '1 microsecond' from work_items")
			.query(Timestamp.class)
			.single()
			.toInstant();
		UUID closedLate = aClosedItem("closed after the cutoff");
		// A state the service never makes (a closed item gains no child): the removal
		// must still refuse it rather than cut the tree.
		UUID openDescendant = UUID.randomUUID();
		this.jdbc.sql(
				"insert into work_items (id, title, status, epoch, parent_id) values (:id, 'open', 'leased', 1, :parent)")
			.param("id", openDescendant)
			.param("parent", withOpenDescendant)
			.update();
		List<UUID> kept = List.of(dependedOn, dependent, held, open, withOpenDescendant, closedLate);
		Map<UUID, Long> keptHistory = historyOfTreesOf(kept);

		ClosedTrees.Removed removed;
		try (Connection other = this.dataSource.getConnection()) {
			other.setAutoCommit(false);
			try (var lock = other.prepareStatement("select 1 from work_items where id = ? for key share")) {
				lock.setObject(1, heldChild);
				lock.executeQuery().close();
			}
			removed = this.trees.removeTrees(List.of(closedLate, dependent, removable, held, open, dependedOn,
					alsoRemovable, withOpenDescendant), cutoff);
			other.rollback();
		}

		assertThat(removed).isEqualTo(new ClosedTrees.Removed(2, 3));
		assertThat(this.api.get("/items/" + removable).status()).isEqualTo(404);
		assertThat(this.api.get("/items/" + alsoRemovable).status()).isEqualTo(404);
		assertThat(count("select count(*) from work_items where id = '" + openDescendant + "'")).isOne();
		assertThat(historyOfTreesOf(kept)).isEqualTo(keptHistory);
		this.jdbc.sql("delete from work_items where id = :id").param("id", openDescendant).update();
		// Held only for a while: the next batch takes it.
		assertThat(this.trees.removeTrees(List.of(held), cutoff)).isEqualTo(new ClosedTrees.Removed(1, 2));
	}

	@Test
	void batchesRacingForTheSameTreesRemoveEachOnce() throws Exception {
		List<UUID> roots = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			roots.add(aClosedItem("old " + i));
		}
		Instant cutoff = later();
		ConcurrentLinkedQueue<ClosedTrees.Removed> results = new ConcurrentLinkedQueue<>();
		ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> racers = new ArrayList<>();
		for (int r = 0; r < 8; r++) {
			List<UUID> order = new ArrayList<>(roots);
			Collections.shuffle(order);
			racers.add(Thread.ofPlatform().start(() -> {
				try {
					start.await();
					for (int from = 0; from < order.size(); from += 7) {
						results
							.add(this.trees.removeTrees(order.subList(from, Math.min(from + 7, order.size())), cutoff));
					}
				}
				catch (Throwable ex) {
					failures.add(ex);
				}
			}));
		}
		start.countDown();
		for (Thread racer : racers) {
			racer.join();
		}
		// A tree that every racer found held by another is left for the next pass.
		results.add(this.trees.removeTrees(roots, cutoff));

		assertThat(failures).isEmpty();
		assertThat(results.stream().mapToInt(ClosedTrees.Removed::trees).sum()).isEqualTo(40);
		assertThat(results.stream().mapToInt(ClosedTrees.Removed::items).sum()).isEqualTo(40);
		assertThat(count("select count(*) from work_items")).isZero();
		assertThat(count("select count(*) from lease_history")).isZero();
	}

	/** A completed item of its own queue, claimed and completed at once. */
	private UUID aClosedItem(String title, Object... keyValues) {
		String queue = "q" + UUID.randomUUID().toString().substring(0, 8);
		Object[] fields = Arrays.copyOf(keyValues, keyValues.length + 2);
		fields[keyValues.length] = "queue";
		fields[keyValues.length + 1] = queue;
		UUID item = createItem(title, fields);
		JsonNode lease = claim(Map.of("workerId", "w", "queues", List.of(queue)));
		assertThat(itemId(lease)).isEqualTo(item);
		assertThat(complete(lease).status()).isEqualTo(200);
		return item;
	}

	/** Every item of the trees of those roots with its rows of history. */
	private Map<UUID, Long> historyOfTreesOf(List<UUID> roots) {
		return this.jdbc.sql("""
				with recursive t(id) as (
				    select unnest(:roots::uuid[])
				    union all
				    select c.id from work_items c join t on c.parent_id = t.id
				)
				select t.id, (select count(*) from lease_history h where h.item_id = t.id)
				           + (select count(*) from checkpoints c where c.item_id = t.id) as rows
				from t
				""")
			.param("roots", SqlArrays.uuids(roots))
			.query((rs, n) -> Map.entry(rs.getObject("id", UUID.class), rs.getLong("rows")))
			.list()
			.stream()
			.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
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
