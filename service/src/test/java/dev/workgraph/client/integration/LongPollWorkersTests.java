package dev.workgraph.client.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.workgraph.WorkGraphApplication;
import dev.workgraph.client.Item;
import dev.workgraph.client.ItemStatus;
import dev.workgraph.client.Lease;
import dev.workgraph.client.NewItem;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.worker.Worker;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hundred long-polling workers, half on each of two service instances, wait on an empty
 * queue; items are then created one by one, alternately through either instance. Each
 * item wakes a waiting worker at once (on whichever instance), no two workers get the
 * same item, and the waiting costs about one request per worker, not a request per poll
 * interval.
 */
class LongPollWorkersTests extends WorkerClientTest {

	private static final int WORKERS = 100;

	private static ConfigurableApplicationContext secondInstance;

	@BeforeAll
	static void startSecondInstance() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		secondInstance = new SpringApplicationBuilder(WorkGraphApplication.class, RequestLog.class).run(
				"--server.port=0", "--spring.datasource.url=" + database.jdbcUrl(),
				"--spring.datasource.username=" + database.username(),
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
	void aHundredWaitingWorkersOnTwoInstancesEachGetADistinctItemAsItemsAreCreatedOneByOne() throws Exception {
		RequestLog secondLog = secondInstance.getBean(RequestLog.class);
		secondLog.clear();
		WorkGraphClient second = WorkGraphClient
			.create("http://127.0.0.1:" + ((WebServerApplicationContext) secondInstance).getWebServer().getPort());
		WorkGraphClient[] instances = { this.client, second };
		Map<String, UUID> itemByWorker = new ConcurrentHashMap<>();
		Set<UUID> claimed = ConcurrentHashMap.newKeySet();
		CountDownLatch allClaimed = new CountDownLatch(WORKERS);
		CountDownLatch finish = new CountDownLatch(1);
		for (int i = 0; i < WORKERS; i++) {
			String workerId = "waiter-" + i;
			started(Worker.builder(instances[i % 2])
				.stream(false) // long polls are what this test is about
				.workerId(workerId)
				.queues("arrivals")
				.waitSeconds(30)
				.leaseSeconds(60)
				.handler((lease) -> {
					UUID previous = itemByWorker.putIfAbsent(workerId, lease.item().id());
					assertThat(previous).as("a second item for %s", workerId).isNull();
					assertThat(claimed.add(lease.item().id())).as("item claimed twice").isTrue();
					allClaimed.countDown();
					finish.await();
					return Map.of("by", workerId);
				})
				.build());
		}
		List<UUID> items;
		try {
			items = waitForItemsOneByOne(instances, itemByWorker, claimed, allClaimed, secondLog);
		}
		finally {
			finish.countDown();
		}
		for (UUID itemId : items) {
			awaitCompleted(itemId);
		}
	}

	private List<UUID> waitForItemsOneByOne(WorkGraphClient[] instances, Map<String, UUID> itemByWorker,
			Set<UUID> claimed, CountDownLatch allClaimed, RequestLog secondLog) throws InterruptedException {
		Thread.sleep(2_000); // every worker waiting at the service
		List<UUID> items = new ArrayList<>();
		for (int i = 0; i < WORKERS; i++) {
			items.add(instances[i % 2].createItem(NewItem.titled("arrival " + i).withQueue("arrivals")).id());
			Thread.sleep(20);
		}
		assertThat(allClaimed.await(30, TimeUnit.SECONDS)).as("every item claimed").isTrue();
		assertThat(itemByWorker).hasSize(WORKERS);
		assertThat(claimed).containsExactlyInAnyOrderElementsOf(items);
		// Woken, not polled: each item was claimed within a second of its creation (both
		// times from the database's clock).
		for (UUID itemId : items) {
			Item item = this.client.getItem(itemId);
			Lease lease = item.lease();
			assertThat(Duration.between(item.createdAt(), lease.acquiredAt())).as("wait of %s", item.title())
				.isLessThan(Duration.ofSeconds(1));
		}
		long claimRequests = this.requests.entries().stream().filter((entry) -> entry.path().equals("/claims")).count()
				+ secondLog.entries().stream().filter((entry) -> entry.path().equals("/claims")).count();
		assertThat(claimRequests).as("claim requests of %d waiting workers", WORKERS).isLessThanOrEqualTo(WORKERS + 20);
		return items;
	}

	private void awaitCompleted(UUID itemId) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (this.client.getItem(itemId).status() != ItemStatus.COMPLETED) {
			assertThat(System.nanoTime()).as("item %s completed", itemId).isLessThan(deadline);
			Thread.sleep(50);
		}
	}

}
