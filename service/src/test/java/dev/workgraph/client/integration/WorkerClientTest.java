package dev.workgraph.client.integration;

import java.time.Duration;
import java.util.UUID;

import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.worker.Backoff;
import dev.workgraph.client.worker.ItemHandler;
import dev.workgraph.client.worker.Worker;
import dev.workgraph.item.ReadyWaiters;
import dev.workgraph.lease.expiry.LeaseReaper;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

/**
 * Base of the client's tests against the real service: a {@link WorkGraphClient} on the
 * service's port, the service's request log, and workers that are always stopped.
 */
@Import(RequestLog.class)
abstract class WorkerClientTest extends ServiceTest {

	@Autowired
	protected RequestLog requests;

	@Autowired
	protected LeaseReaper reaper;

	@Autowired
	private ReadyWaiters waiters;

	protected WorkGraphClient client;

	private final java.util.List<Worker> workers = new java.util.concurrent.CopyOnWriteArrayList<>();

	@BeforeEach
	void connect() {
		this.requests.clear();
		this.client = WorkGraphClient.builder("http://127.0.0.1:" + this.port)
			.requestTimeout(Duration.ofSeconds(10))
			.build();
	}

	@AfterEach
	void stopWorkers() throws InterruptedException {
		// All at once: each may wait out its grace period.
		java.util.List<Thread> stopping = this.workers.stream()
			.map((worker) -> Thread.ofPlatform().start(() -> worker.stop(Duration.ofSeconds(5))))
			.toList();
		for (Thread thread : stopping) {
			thread.join();
		}
		this.workers.clear();
		// A stopped worker's waiting claim stays on the service until its wait ends (the
		// service cannot tell that the client hung up while nothing is written): let it
		// end, so that it takes nothing another test creates.
		long deadline = System.nanoTime() + Duration.ofSeconds(65).toNanos();
		while (this.waiters.waiting() > 0 && System.nanoTime() - deadline < 0) {
			Thread.sleep(20);
		}
	}

	/**
	 * A worker on the service with short waiting claims (one second), so that a stopped
	 * worker's last claim does not outlive its test by long, and quick polling otherwise.
	 */
	protected Worker.Builder worker(String workerId, ItemHandler handler) {
		// These tests count the HTTP requests a worker sends: the worker stream has tests
		// of
		// its own (WorkerStreamRuntimeTests).
		return Worker.builder(this.client)
			.stream(false)
			.workerId(workerId)
			.handler(handler)
			.waitSeconds(1)
			.pollBackoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(200)))
			.retryBackoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(500)));
	}

	protected Worker started(Worker worker) {
		this.workers.add(worker);
		return worker.start();
	}

	protected static UUID id(String text) {
		return UUID.fromString(text);
	}

}
