package dev.workgraph.lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.IntStream;

import dev.workgraph.WorkGraphApplication;
import dev.workgraph.lease.expiry.LeaseReaper;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two independent service instances (application contexts with their own connection pools
 * and HTTP ports) on one database, as in a multi-instance deployment: claims through both
 * never grant an item twice, and their reapers running at once record every expiry — and
 * open every crash-loop question — exactly once.
 */
class TwoInstanceTests extends LeaseTestSupport {

	private static ConfigurableApplicationContext secondInstance;

	@BeforeAll
	static void startSecondInstance() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		// As command-line arguments, which take precedence over application.yml.
		secondInstance = new SpringApplicationBuilder(WorkGraphApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=" + database.username(),
				"--spring.datasource.password=" + database.password(),
				"--spring.datasource.hikari.pool-name=second-instance", "--workgraph.lease.reaper-enabled=false",
				"--workgraph.lease.vacuum-interval=0s", "--workgraph.security.enabled=false");
	}

	@AfterAll
	static void stopSecondInstance() {
		if (secondInstance != null) {
			secondInstance.close();
		}
	}

	private Api second() {
		return new Api(((WebServerApplicationContext) secondInstance).getWebServer().getPort());
	}

	private LeaseReaper secondReaper() {
		return secondInstance.getBean(LeaseReaper.class);
	}

	@Test
	void instancesHaveTheirOwnPortsAndPools() {
		assertThat(second().base()).isNotEqualTo(this.api.base());
		assertThat(secondInstance.getBean(LeaseReaper.class)).isNotSameAs(this.reaper);
		createItem("seen by both");
		assertThat(second().get("/items?status=ready").body().path("items")).hasSize(1);
	}

	@Test
	void claimsThroughBothInstancesNeverGrantAnItemTwice() {
		UUID parent = createItem("a thousand steps", "queue", "plans");
		assertCreated(decompose(claimFrom("plans", "planner"),
				IntStream.range(0, 1000).mapToObj((i) -> child("k" + i, "queue", "work", "priority", i % 4)).toList()));
		Api[] instances = { this.api, second() };
		List<List<JsonNode>> claimedByWorker = Concurrently.run(32, (worker) -> claimUntilEmpty(instances[worker % 2],
				Map.of("workerId", "worker-" + worker, "queues", List.of("work"))));
		List<JsonNode> claimed = claimedByWorker.stream().flatMap(List::stream).toList();
		assertThat(claimed).hasSize(1000);
		assertThat(claimed.stream().map((claim) -> itemId(claim)).distinct()).hasSize(1000);
		assertThat(claimed).allSatisfy((claim) -> assertThat(epoch(claim)).isEqualTo(1));
		assertThat(count("select count(*) from leases")).isEqualTo(1000);
		// Each lease is honoured by the other instance too.
		ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
		Concurrently.run(16, (worker) -> {
			for (int w = worker; w < 32; w += 16) {
				Api other = instances[(w + 1) % 2];
				for (JsonNode claim : claimedByWorker.get(w)) {
					Api.Response done = other.post("/leases/" + leaseId(claim) + "/complete",
							Map.of("epoch", epoch(claim)));
					if (done.status() != 200) {
						failures.add(done.toString());
					}
				}
			}
			return null;
		});
		assertThat(failures).isEmpty();
		assertThat(status(parent)).isEqualTo("ready");
		assertThat(this.audit.run().inconsistencies()).isEmpty();
	}

	@Test
	void reapersOfBothInstancesRecordEachOf2000ExpiriesExactlyOnce() {
		List<UUID> parents = new ArrayList<>();
		for (int p = 0; p < 2; p++) {
			parents.add(createItem("batch " + p, "queue", "plans"));
			assertCreated(decompose(claimFrom("plans", "planner"),
					IntStream.range(0, 1000).mapToObj((i) -> child("k" + i, "queue", "work")).toList()));
		}
		Api[] instances = { this.api, second() };
		List<List<JsonNode>> claimed = Concurrently.run(16, (worker) -> claimUntilEmpty(instances[worker % 2],
				Map.of("workerId", "worker-" + worker, "queues", List.of("work"))));
		assertThat(claimed.stream().mapToInt(List::size).sum()).isEqualTo(2000);
		this.jdbc.sql(
				"update leases set acquired_at = now() - interval '1 minute', expires_at = now() - interval '1 second'")
			.update();
		Instant beforeReaping = databaseNow();
		LeaseReaper[] reapers = { this.reaper, secondReaper() };
		List<Integer> recorded = Concurrently.run(4, (i) -> reapers[i % 2].reapExpired());
		assertThat(recorded.stream().mapToInt(Integer::intValue).sum()).isEqualTo(2000);
		assertThat(count("select count(*) from leases")).isZero();
		assertThat(count("select count(*) from lease_history where outcome = 'expired'")).isEqualTo(2000);
		assertThat(count("select count(*) from lease_history where outcome = 'expired' and ended_at = expires_at"))
			.isEqualTo(2000);
		assertThat(count("select count(distinct item_id) from lease_history where outcome = 'expired'"))
			.isEqualTo(2000);
		assertThat(this.jdbc
			.sql("select count(*) from work_items where status = 'ready' and ready_since >= :before "
					+ "and parent_id in (:first, :second)")
			.param("before", java.sql.Timestamp.from(beforeReaping))
			.param("first", parents.get(0))
			.param("second", parents.get(1))
			.query(Long.class)
			.single()).isEqualTo(2000);
		assertThat(count("select count(*) from ready_items")).isEqualTo(2000);
		assertThat(this.audit.run().inconsistencies()).isEmpty();
		// The items are back in circulation, one epoch on.
		JsonNode again = claim("late worker");
		assertThat(epoch(again)).isEqualTo(2);
	}

	@Test
	void crashLoopGuardOpensExactlyOneQuestionPerItemWithBothReapersRunning() {
		createItem("plan", "queue", "plans");
		List<UUID> items = ids(decompose(claimFrom("plans", "planner"),
				IntStream.range(0, 100).mapToObj((i) -> child("k" + i, "queue", "poison")).toList())
			.body()
			.path("children"));
		Api[] instances = { this.api, second() };
		LeaseReaper[] reapers = { this.reaper, secondReaper() };
		Map<UUID, UUID> lastLease = new HashMap<>();
		for (int round = 1; round <= 3; round++) {
			List<List<JsonNode>> claimed = Concurrently.run(8, (worker) -> claimUntilEmpty(instances[worker % 2],
					Map.of("workerId", "worker-" + worker, "queues", List.of("poison"))));
			assertThat(claimed.stream().mapToInt(List::size).sum()).as("round %d", round).isEqualTo(100);
			claimed.stream().flatMap(List::stream).forEach((claim) -> lastLease.put(itemId(claim), leaseId(claim)));
			this.jdbc
				.sql("update leases set acquired_at = now() - interval '1 minute', "
						+ "expires_at = now() - interval '1 second'")
				.update();
			List<Integer> recorded = Concurrently.run(4, (i) -> reapers[i % 2].reapExpired());
			assertThat(recorded.stream().mapToInt(Integer::intValue).sum()).isEqualTo(100);
		}
		assertThat(count("select count(*) from attention_requests")).isEqualTo(100);
		assertThat(count("select count(distinct item_id) from attention_requests where raised_by = 'system' "
				+ "and blocking and status = 'open' and worker_id is null and epoch = 3"))
			.isEqualTo(100);
		for (UUID item : items.subList(0, 10)) {
			JsonNode view = item(item);
			assertThat(view.path("status").asString()).isEqualTo("blocked");
			assertThat(view.path("blockers").path("openAttentionRequests").asInt()).isEqualTo(1);
			assertThat(view.path("attentionRequests")).hasSize(1);
			assertThat(view.path("attentionRequests").get(0).path("leaseId").asString())
				.isEqualTo(lastLease.get(item).toString());
		}
		nothingToClaim();
		assertThat(this.audit.run().inconsistencies()).isEmpty();
	}

}
