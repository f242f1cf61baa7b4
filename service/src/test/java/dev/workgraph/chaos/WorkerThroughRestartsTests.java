package dev.workgraph.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.workgraph.client.Item;
import dev.workgraph.client.ItemStatus;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.NewItem;
import dev.workgraph.client.NewToken;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.integration.Items;
import dev.workgraph.client.integration.StubbornHandler;
import dev.workgraph.client.problem.ServiceUnavailable;
import dev.workgraph.client.problem.WorkGraphException;
import dev.workgraph.client.worker.Backoff;
import dev.workgraph.client.worker.ItemHandler;
import dev.workgraph.client.worker.LeaseContext;
import dev.workgraph.client.worker.LeaseLost;
import dev.workgraph.client.worker.Worker;
import dev.workgraph.client.worker.WorkerListener;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java worker client while the service restarts under it: a real service process
 * (killed with SIGKILL and started again on the same port) and its own PostgreSQL
 * (stopped and started). A worker whose lease outlives the outage rides through the
 * connection failures and 503s and completes under its original epoch; a worker whose
 * lease runs out meanwhile stops by itself, sends nothing, and the restarted service
 * hands the item to the next worker under a higher epoch.
 */
class WorkerThroughRestartsTests {

	private static ChaosCluster cluster;

	private final List<Worker> workers = new java.util.ArrayList<>();

	private WorkGraphClient client;

	/** Whether the workers use the worker stream. */
	private boolean stream;

	@BeforeAll
	static void startCluster() {
		cluster = ChaosCluster.start(1, ChaosTests.reports("worker-client"));
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@BeforeEach
	void connect() {
		cluster.ensureRunning();
		cluster.reset();
		// Access control is on in the cluster: the test acts as its admin, each worker
		// with a
		// worker token of its own.
		this.client = WorkGraphClient.builder(service().base())
			.token(cluster.adminToken())
			.requestTimeout(Duration.ofSeconds(5))
			.build();
	}

	@AfterEach
	void stopWorkers() {
		this.workers.forEach((worker) -> worker.stop(Duration.ofSeconds(5)));
	}

	private static ServiceInstance service() {
		return cluster.instances().get(0);
	}

	/**
	 * Each test runs with workers on the worker stream (the runtime's default: the
	 * service is killed with streams open) and with a request each.
	 */
	@ParameterizedTest(name = "stream {0}")
	@ValueSource(booleans = { true, false })
	void aServiceKilledMidWorkIsRiddenThroughAndFencesTheLeaseThatRanOut(boolean stream) throws Exception {
		this.stream = stream;
		Item longItem = this.client.createItem(NewItem.titled("outlives the outage").withQueue("long"));
		Item shortItem = this.client.createItem(NewItem.titled("runs out during the outage").withQueue("short"));
		CountDownLatch killed = new CountDownLatch(1);
		Events longEvents = new Events();
		CountDownLatch longStarted = new CountDownLatch(1);
		start(worker("patient", (lease) -> {
			longStarted.countDown();
			killed.await();
			// Finishes while the service is down: the completion is retried until it is
			// back, under the same lease and epoch.
			return Map.of("finished", "while the service was down");
		}).queues("long").leaseSeconds(60).listener(longEvents));
		StubbornHandler stubborn = new StubbornHandler();
		Worker hasty = start(worker("hasty", stubborn).queues("short").leaseSeconds(3));
		assertThat(longStarted.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(stubborn.working.await(30, TimeUnit.SECONDS)).isTrue();

		service().kill();
		killed.countDown();
		// With the service gone, no renewal succeeds: the 3 s lease is given up by the
		// client itself, while the service is still down.
		assertThat(stubborn.interrupted.await(15, TimeUnit.SECONDS)).isTrue();
		assertThat(service().alive()).isFalse();
		assertThat(stubborn.lost.get().reason()).isEqualTo(LeaseLost.Reason.RENEWALS_FAILED);
		assertThat(stubborn.refusedLocally.get()).isInstanceOf(LeaseLost.class);
		hasty.stop(Duration.ofSeconds(5)); // or it would claim the item again
		service().start();

		Item finished = Items.awaitStatus(this.client, longItem.id(), ItemStatus.COMPLETED, Duration.ofSeconds(60));
		assertThat(finished.result().path("finished").asString()).isEqualTo("while the service was down");
		assertThat(this.client.leasesOfItem(longItem.id())).singleElement().satisfies((lease) -> {
			assertThat(lease.epoch()).isEqualTo(1);
			assertThat(lease.workerId()).isEqualTo("patient");
			assertThat(lease.outcome()).isEqualTo(LeaseOutcome.COMPLETED);
		});
		assertThat(longEvents.lost).isEmpty();

		// The restarted service recorded the short lease's expiry and hands the item on,
		// one epoch up. The stale holder's completion was never sent: its lease ended as
		// expired, not completed.
		start(worker("successor", (lease) -> Map.of("by", "successor")).queues("short").leaseSeconds(30));
		Items.awaitStatus(this.client, shortItem.id(), ItemStatus.COMPLETED, Duration.ofSeconds(60));
		List<Lease> leases = this.client.leasesOfItem(shortItem.id());
		assertThat(leases).extracting(Lease::epoch, Lease::workerId, Lease::outcome)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(1L, "hasty", LeaseOutcome.EXPIRED),
					org.assertj.core.groups.Tuple.tuple(2L, "successor", LeaseOutcome.COMPLETED));
	}

	@ParameterizedTest(name = "stream {0}")
	@ValueSource(booleans = { true, false })
	void aWorkerRidesThroughTheServicesAnswers503WhilePostgresIsDown(boolean stream) throws Exception {
		this.stream = stream;
		Item item = this.client.createItem(NewItem.titled("rides through 503s").withQueue("steady"));
		Events events = new Events();
		CountDownLatch working = new CountDownLatch(1);
		CountDownLatch databaseDown = new CountDownLatch(1);
		start(worker("steady", (lease) -> {
			working.countDown();
			databaseDown.await();
			// The renewal due 6.7 s after the claim meets the outage; then the completion
			// is
			// sent while PostgreSQL is still down, and retried until it is back.
			Thread.sleep(8_500);
			return Map.of("done", true);
		}).queues("steady").leaseSeconds(20).listener(events));
		assertThat(working.await(30, TimeUnit.SECONDS)).isTrue();
		cluster.postgres().stopServer();
		try {
			databaseDown.countDown();
			Thread.sleep(11_000);
		}
		finally {
			cluster.postgres().startServer();
		}
		Item done = Items.awaitStatus(this.client, item.id(), ItemStatus.COMPLETED, Duration.ofSeconds(60));
		assertThat(done.result().path("done").asBoolean()).isTrue();
		assertThat(events.renewalFailures).as("renewal failures while PostgreSQL was down")
			.anySatisfy((failure) -> assertThat(failure).isInstanceOf(ServiceUnavailable.class));
		assertThat(events.writeFailures).as("completion failures while PostgreSQL was down")
			.anySatisfy((failure) -> assertThat(failure).isInstanceOf(ServiceUnavailable.class));
		assertThat(events.lost).isEmpty();
		assertThat(this.client.leasesOfItem(item.id())).singleElement().satisfies((lease) -> {
			assertThat(lease.epoch()).isEqualTo(1);
			assertThat(lease.outcome()).isEqualTo(LeaseOutcome.COMPLETED);
		});
	}

	private Worker.Builder worker(String workerId, ItemHandler handler) {
		String token = this.client.createToken(NewToken.worker("worker " + workerId, workerId)).token();
		WorkGraphClient own = WorkGraphClient.builder(service().base())
			.token(token)
			.requestTimeout(Duration.ofSeconds(5))
			.build();
		return Worker.builder(own)
			.stream(this.stream)
			.workerId(workerId)
			.handler(handler)
			.pollBackoff(Backoff.exponential(Duration.ofMillis(100), Duration.ofMillis(500)))
			.retryBackoff(Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(1)));
	}

	private Worker start(Worker.Builder builder) {
		Worker worker = builder.build();
		this.workers.add(worker);
		return worker.start();
	}

	private static final class Events implements WorkerListener {

		final ConcurrentLinkedQueue<WorkGraphException> renewalFailures = new ConcurrentLinkedQueue<>();

		final ConcurrentLinkedQueue<WorkGraphException> writeFailures = new ConcurrentLinkedQueue<>();

		final ConcurrentLinkedQueue<LeaseLost> lost = new ConcurrentLinkedQueue<>();

		@Override
		public void writeFailed(LeaseContext lease, WorkGraphException failure, Duration retryIn) {
			this.writeFailures.add(failure);
		}

		@Override
		public void renewalFailed(LeaseContext lease, WorkGraphException failure, Duration retryIn) {
			this.renewalFailures.add(failure);
		}

		@Override
		public void leaseLost(LeaseContext lease, LeaseLost reason) {
			this.lost.add(reason);
		}

	}

}
