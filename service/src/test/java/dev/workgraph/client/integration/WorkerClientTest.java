package dev.workgraph.client.integration;

import java.time.Duration;
import java.util.UUID;

import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.worker.Backoff;
import dev.workgraph.client.worker.ItemHandler;
import dev.workgraph.client.worker.Worker;
import dev.workgraph.lease.LeaseReaper;
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
	}

	/**
	 * A worker on the service with quick polling: the service under test may not take
	 * {@code waitSeconds} yet, and then the worker polls.
	 */
	protected Worker.Builder worker(String workerId, ItemHandler handler) {
		return Worker.builder(this.client)
			.workerId(workerId)
			.handler(handler)
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
