package dev.workgraph.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import dev.workgraph.WorkGraphApplication;
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
 * A capped queue on two service instances: many workers through both, each mixing single
 * claims, batch claims and completions with a chained claim, drain a capped queue and an
 * uncapped one, and the lease history shows the capped queue never had more leases at
 * once than its cap (a lease ends before the commit that lets the next claim see it end,
 * so overlapping history rows are leases that were active together).
 */
class QueueCapAcrossInstancesTests extends LeaseTestSupport {

	private static final int CAP = 4;

	private static final int ITEMS = 240;

	/** The most leases of the queue active at any one time, from its lease history. */
	private static final String MOST_AT_ONCE = """
			with history as (
			    select h.acquired_at, h.ended_at from lease_history h join work_items w on w.id = h.item_id
			    where w.queue = :queue
			), events as (
			    select acquired_at as at, 1 as delta from history
			    union all
			    select ended_at, -1 from history
			)
			select coalesce(max(active), 0) from (
			    select sum(delta) over (order by at, delta rows unbounded preceding) as active from events
			) running
			""";

	private static ConfigurableApplicationContext secondInstance;

	@BeforeAll
	static void startSecondInstance() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
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

	@Test
	void singleBatchAndChainedClaimsOnTwoInstancesNeverExceedTheCap() {
		itemsIn("capped", ITEMS, 5);
		itemsIn("free", ITEMS, 0);
		assertOk(this.api.patch("/queues/capped", Map.of("maxActiveLeases", CAP)));
		Api[] instances = { this.api,
				new Api(((WebServerApplicationContext) secondInstance).getWebServer().getPort()) };
		List<Integer> completed = Concurrently.run(24, (worker) -> work(instances[worker % 2], "worker-" + worker));
		assertThat(completed.stream().mapToInt(Integer::intValue).sum()).isEqualTo(2 * ITEMS);
		assertThat(count("select count(*) from work_items where status = 'completed'")).isEqualTo(2 * ITEMS);
		assertThat(mostAtOnce("capped")).isLessThanOrEqualTo(CAP);
		// The cap was reached: the queue was the bottleneck, not the workers.
		assertThat(mostAtOnce("capped")).isEqualTo(CAP);
		assertThat(mostAtOnce("free")).isGreaterThan(CAP);
		assertThat(this.audit.run().inconsistencies()).isEmpty();
	}

	/** Claims one way or another and completes, until both queues are drained. */
	private int work(Api api, String worker) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		int completed = 0;
		List<JsonNode> held = new ArrayList<>();
		while (true) {
			if (held.isEmpty()) {
				held.addAll(claimSomehow(api, worker, random.nextInt(3)));
			}
			if (held.isEmpty()) {
				if (count("select count(*) from work_items where status <> 'completed'") == 0) {
					return completed;
				}
				pause(2);
				continue;
			}
			JsonNode claim = held.removeFirst();
			pause(random.nextInt(3));
			boolean chain = random.nextBoolean();
			Api.Response done = api.post("/leases/" + leaseId(claim) + "/complete",
					chain ? Map.of("epoch", epoch(claim), "claimNext", Map.of()) : Map.of("epoch", epoch(claim)));
			assertOk(done);
			completed++;
			if (chain && !done.body().path("next").isNull()) {
				held.add(done.body().path("next"));
			}
		}
	}

	private static List<JsonNode> claimSomehow(Api api, String worker, int how) {
		Api.Response answer = switch (how) {
			case 0 -> api.post("/claims", Map.of("workerId", worker));
			case 1 -> api.post("/claims", Map.of("workerId", worker, "queues", List.of("capped", "free")));
			default -> api.post("/claims/batch", Map.of("workerId", worker, "limit", 3));
		};
		if (answer.status() == 204) {
			return List.of();
		}
		assertCreated(answer);
		return (how == 2) ? answer.body().path("claims").valueStream().toList() : List.of(answer.body());
	}

	private long mostAtOnce(String queue) {
		return this.jdbc.sql(MOST_AT_ONCE).param("queue", queue).query(Long.class).single();
	}

	private void itemsIn(String queue, int n, int priority) {
		for (int i = 0; i < n; i++) {
			createItem(queue + " " + i, "queue", queue, "priority", priority);
		}
	}

	private static void pause(int millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
