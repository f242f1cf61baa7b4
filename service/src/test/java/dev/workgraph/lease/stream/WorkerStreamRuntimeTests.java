package dev.workgraph.lease.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.integration.RequestLog;
import dev.workgraph.client.worker.Backoff;
import dev.workgraph.client.worker.Worker;
import dev.workgraph.lease.expiry.LeaseReaper;
import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java worker runtime on the worker stream (its default) against the real service:
 * many workers process every item exactly once with no claim or lease request over HTTP,
 * and workers whose streams the service drops mid-run carry on (writes over HTTP until a
 * claim opens a new stream) without losing or repeating an item.
 */
@Import(RequestLog.class)
class WorkerStreamRuntimeTests extends ServiceTest {

	@Autowired
	LeaseReaper reaper;

	@Autowired
	private RequestLog requests;

	@Autowired
	private WorkerStreams streams;

	private WorkGraphClient client;

	private final List<Worker> workers = new ArrayList<>();

	@BeforeEach
	void connect() {
		this.requests.clear();
		this.client = WorkGraphClient.builder("http://127.0.0.1:" + this.port)
			.requestTimeout(Duration.ofSeconds(10))
			.build();
	}

	@AfterEach
	void stopWorkers() {
		this.workers.forEach((worker) -> worker.stop(Duration.ofSeconds(5)));
		this.workers.clear();
	}

	@Test
	void streamWorkersProcessEveryItemExactlyOnceWithoutHttpClaims() {
		int items = 400;
		for (int i = 0; i < items; i++) {
			createItem("streamed by the runtime " + i, "queue", "runtime");
		}
		Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
		for (int w = 0; w < 4; w++) {
			start("runtime-worker-" + w, "runtime", 8, handled, Duration.ZERO, 30);
		}
		Eventually.until("every item is completed", Duration.ofSeconds(60), Duration.ofMillis(50),
				() -> completed("runtime-worker-%") == items);
		assertThat(handled).hasSize(items);
		assertThat(handled.values()).allMatch((count) -> count.get() == 1);
		assertThat(this.streams.size()).as("one stream per worker").isEqualTo(4);
		assertThat(this.requests.entries()).as("claims, renewals and completions all went over the streams")
			.noneMatch((entry) -> entry.path().startsWith("/claims") || entry.path().startsWith("/leases"));
	}

	@Test
	void workersRideThroughStreamsDroppedByTheService() throws Exception {
		int items = 200;
		for (int i = 0; i < items; i++) {
			createItem("dropped " + i, "queue", "dropped");
		}
		Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
		for (int w = 0; w < 3; w++) {
			start("dropped-worker-" + w, "dropped", 4, handled, Duration.ofMillis(20), 10);
		}
		for (int cut = 0; cut < 5; cut++) {
			Eventually.until("the workers stream again", Duration.ofSeconds(20), Duration.ofMillis(10),
					() -> this.streams.size() > 0);
			Thread.sleep(150);
			// As at a shutdown: every open stream is closed, mid-message or not.
			this.streams.stopping();
		}
		// A lease pushed as its stream was cut may never reach the worker: it expires, as
		// a
		// crashed worker's would, and the reaper (not scheduled in these tests) records
		// it.
		Eventually.until("every item is completed", Duration.ofSeconds(90), Duration.ofMillis(50),
				() -> this.reaper.reapExpired() >= 0 && completed("dropped-worker-%") == items);
		assertThat(handled.values()).as("no item handled twice").allMatch((count) -> count.get() == 1);
		Integer open = this.jdbc.sql("select count(*) from leases").query(Integer.class).single();
		assertThat(open).as("leases left behind").isZero();
	}

	private void start(String workerId, String queue, int concurrency, Map<String, AtomicInteger> handled,
			Duration work, int leaseSeconds) {
		Worker worker = Worker.builder(this.client)
			.workerId(workerId)
			.queues(queue)
			.concurrency(concurrency)
			.waitSeconds(5)
			.leaseSeconds(leaseSeconds)
			.retryBackoff(Backoff.exponential(Duration.ofMillis(20), Duration.ofMillis(200)))
			.handler((lease) -> {
				handled.computeIfAbsent(lease.item().id().toString(), (id) -> new AtomicInteger()).incrementAndGet();
				Thread.sleep(work.toMillis());
				return Map.of("by", workerId);
			})
			.build();
		this.workers.add(worker);
		worker.start();
	}

	private int completed(String workerPattern) {
		return this.jdbc
			.sql("select count(*) from lease_history where outcome = 'completed' and worker_id like :pattern")
			.param("pattern", workerPattern)
			.query(Integer.class)
			.single();
	}

}
