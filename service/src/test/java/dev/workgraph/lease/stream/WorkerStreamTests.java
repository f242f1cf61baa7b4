package dev.workgraph.lease.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.ServiceTest;
import dev.workgraph.testing.StreamConnection;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker stream against the real service (access control off here; see
 * WorkerStreamAccessTests): leases pushed as credits allow and never more, every item
 * processed exactly once by many workers at once, lease writes fenced and refused as
 * their HTTP requests are, and what a cut connection leaves behind.
 */
class WorkerStreamTests extends ServiceTest {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Autowired
	private WorkerStreams streams;

	@Test
	void manyWorkersOverStreamsProcessEveryItemExactlyOnce() throws Exception {
		int items = 600;
		int workers = 12;
		for (int i = 0; i < items; i++) {
			createItem("streamed " + i, "queue", "streamed");
		}
		Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();
		List<String> refusals = new CopyOnWriteArrayList<>();
		AtomicInteger done = new AtomicInteger();
		ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
		List<Future<?>> running = new ArrayList<>();
		for (int w = 0; w < workers; w++) {
			String workerId = "stream-worker-" + w;
			boolean chained = w % 2 == 0;
			running.add(pool.submit(() -> {
				try (StreamConnection stream = StreamConnection.open(this.port, null)) {
					JsonNode welcome = stream.hello(Map.of("workerId", workerId, "queues", List.of("streamed")));
					assertThat(welcome.path("status").asInt()).as(welcome.toString()).isEqualTo(200);
					stream.credit(4);
					while (done.get() < items) {
						JsonNode pushed = stream.nextLease(Duration.ofMillis(500));
						while (pushed != null) {
							pushed = work(stream, pushed, chained, completions, refusals, done);
						}
					}
				}
				return null;
			}));
		}
		for (Future<?> worker : running) {
			worker.get();
		}
		pool.close();
		assertThat(refusals).as("refused completions").isEmpty();
		assertThat(completions).hasSize(items);
		assertThat(completions.values()).allMatch((count) -> count.get() == 1);
		Integer completed = this.jdbc
			.sql("select count(*) from lease_history where outcome = 'completed' and worker_id like 'stream-worker-%'")
			.query(Integer.class)
			.single();
		assertThat(completed).isEqualTo(items);
	}

	/**
	 * Completes the pushed item (half the workers with {@code claimNext}, which then
	 * brings the next one in the answer); answers the next lease to work on, or null.
	 */
	private static JsonNode work(StreamConnection stream, JsonNode pushed, boolean chained,
			Map<String, AtomicInteger> completions, List<String> refusals, AtomicInteger done) {
		String itemId = pushed.path("item").path("id").asString();
		Map<String, Object> body = new java.util.HashMap<>();
		body.put("epoch", pushed.path("lease").path("epoch").asLong());
		body.put("result", Map.of("by", "stream"));
		if (chained) {
			body.put("claimNext", Map.of("queues", List.of("streamed")));
		}
		JsonNode answer = stream.request("complete", pushed.path("lease").path("id").asString(), body);
		if (answer.path("status").asInt() != 200) {
			refusals.add(answer.toString());
			return null;
		}
		completions.computeIfAbsent(itemId, (id) -> new AtomicInteger()).incrementAndGet();
		done.incrementAndGet();
		JsonNode next = answer.path("body").path("next");
		if (chained && next.isObject()) {
			// The slot goes on with the item the completion brought.
			return new tools.jackson.databind.node.ObjectNode(tools.jackson.databind.node.JsonNodeFactory.instance)
				.put("type", "lease")
				.set("lease", next.get("lease"))
				.set("item", next.get("item"));
		}
		stream.credit(1);
		return null;
	}

	@Test
	void leasesArePushedOnlyAsCreditsAllow() throws Exception {
		for (int i = 0; i < 5; i++) {
			createItem("credited " + i, "queue", "credited");
		}
		try (StreamConnection stream = StreamConnection.open(this.port, null)) {
			stream.hello(Map.of("workerId", "credited-worker", "queues", List.of("credited")));
			assertThat(stream.nextLease(Duration.ofMillis(500))).as("no credit, no lease").isNull();
			stream.credit(2);
			assertThat(stream.nextLease(WAIT)).isNotNull();
			assertThat(stream.nextLease(WAIT)).isNotNull();
			assertThat(stream.nextLease(Duration.ofMillis(700))).as("two credits, two leases").isNull();
			stream.credit(1);
			assertThat(stream.nextLease(WAIT)).isNotNull();
		}
	}

	@Test
	void aWaitingStreamGetsAnItemAsSoonAsItIsReady() throws Exception {
		try (StreamConnection stream = StreamConnection.open(this.port, null)) {
			stream.hello(Map.of("workerId", "waiting-stream", "queues", List.of("later")));
			stream.credit(1);
			assertThat(stream.nextLease(Duration.ofMillis(300))).isNull();
			long start = System.nanoTime();
			UUID item = createItem("ready later", "queue", "later");
			JsonNode pushed = stream.nextLease(WAIT);
			assertThat(pushed).isNotNull();
			assertThat(pushed.path("item").path("id").asString()).isEqualTo(item.toString());
			assertThat(pushed.path("lease").path("workerId").asString()).isEqualTo("waiting-stream");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		}
	}

	@Test
	void staleWritesAreRefusedWithTheHttpProblems() throws Exception {
		createItem("fenced", "queue", "fenced");
		try (StreamConnection stream = StreamConnection.open(this.port, null)) {
			stream.hello(Map.of("workerId", "fenced-worker", "queues", List.of("fenced")));
			stream.credit(1);
			JsonNode pushed = stream.nextLease(WAIT);
			String leaseId = pushed.path("lease").path("id").asString();
			long epoch = pushed.path("lease").path("epoch").asLong();

			JsonNode wrongEpoch = stream.request("renew", leaseId, Map.of("epoch", epoch + 1));
			assertThat(wrongEpoch.path("status").asInt()).isEqualTo(409);
			assertThat(wrongEpoch.path("problem").path("code").asString()).isEqualTo("epoch_mismatch");
			assertThat(wrongEpoch.path("problem").path("currentEpoch").asLong()).isEqualTo(epoch);

			JsonNode renewed = stream.request("renew", leaseId, Map.of("epoch", epoch, "leaseSeconds", 120));
			assertThat(renewed.path("status").asInt()).as(renewed.toString()).isEqualTo(200);
			assertThat(renewed.path("body").path("id").asString()).isEqualTo(leaseId);

			JsonNode checkpoint = stream.request("checkpoint", leaseId,
					Map.of("epoch", epoch, "data", Map.of("at", 1)));
			assertThat(checkpoint.path("status").asInt()).as(checkpoint.toString()).isEqualTo(201);
			assertThat(checkpoint.path("body").path("checkpoint").path("seq").asInt()).isEqualTo(1);

			JsonNode released = stream.request("release", leaseId, Map.of("epoch", epoch, "reason", "not now"));
			assertThat(released.path("status").asInt()).as(released.toString()).isEqualTo(200);
			assertThat(released.path("body").path("lease").path("outcome").asString()).isEqualTo("released");

			JsonNode late = stream.request("complete", leaseId, Map.of("epoch", epoch));
			assertThat(late.path("status").asInt()).isEqualTo(409);
			assertThat(late.path("problem").path("code").asString()).isEqualTo("lease_ended");
			JsonNode lateFail = stream.request("fail", leaseId, Map.of("epoch", epoch, "error", Map.of("x", 1)));
			assertThat(lateFail.path("problem").path("code").asString()).isEqualTo("lease_ended");
		}
		Integer completed = this.jdbc.sql("select count(*) from lease_history where outcome = 'completed'")
			.query(Integer.class)
			.single();
		assertThat(completed).as("nothing written by the refused writes").isZero();
	}

	@Test
	void badMessagesAreAnsweredWithProblemsAndTheStreamGoesOn() throws Exception {
		UUID unknown = UUID.randomUUID();
		try (StreamConnection stream = StreamConnection.open(this.port, null)) {
			JsonNode noWorker = stream.hello(Map.of("queues", List.of("x")));
			assertThat(noWorker.path("problem").path("code").asString()).isEqualTo("validation_failed");
			JsonNode unknownOperation = stream.request("teleport", unknown, Map.of("epoch", 1));
			assertThat(unknownOperation.path("status").asInt()).isEqualTo(400);
			assertThat(unknownOperation.path("problem").path("code").asString()).isEqualTo("malformed_request");
			JsonNode noEpoch = stream.request("complete", unknown, Map.of("result", Map.of()));
			assertThat(noEpoch.path("problem").path("code").asString()).isEqualTo("validation_failed");
			assertThat(noEpoch.path("problem").path("errors").get(0).path("field").asString()).isEqualTo("epoch");
			JsonNode unknownLease = stream.request("renew", unknown, Map.of("epoch", 1));
			assertThat(unknownLease.path("status").asInt()).isEqualTo(404);
			JsonNode malformedId = stream.request("renew", "not-a-lease", Map.of("epoch", 1));
			assertThat(malformedId.path("problem").path("code").asString()).isEqualTo("not_found");
			JsonNode nul = stream.request("fail", unknown, Map.of("epoch", 1, "error", Map.of("a", "\u0000")));
			assertThat(nul.path("problem").path("code").asString()).isEqualTo("validation_failed");
			stream.sendText("{\"type\":\"renew\",");
			JsonNode malformed = stream.nextUnreferenced(WAIT);
			assertThat(malformed.path("problem").path("code").asString()).isEqualTo("malformed_request");
			stream.sendText("{\"type\":\"credit\",\"credits\":1}");
			JsonNode creditFirst = stream.nextUnreferenced(WAIT);
			assertThat(creditFirst.path("problem").path("code").asString()).isEqualTo("malformed_request");
			JsonNode welcome = stream.hello(Map.of("workerId", "after-problems"));
			assertThat(welcome.path("status").asInt()).as(welcome.toString()).isEqualTo(200);
			JsonNode again = stream.hello(Map.of("workerId", "after-problems"));
			assertThat(again.path("status").asInt()).isEqualTo(400);
		}
	}

	@Test
	void aConnectionCutMidMessageWritesNothingAndItsLeaseLivesOnUntilItExpires() throws Exception {
		createItem("cut", "queue", "cut");
		StreamConnection stream = StreamConnection.open(this.port, null);
		stream.hello(Map.of("workerId", "cut-worker", "queues", List.of("cut"), "leaseSeconds", 60));
		stream.credit(1);
		JsonNode pushed = stream.nextLease(WAIT);
		String leaseId = pushed.path("lease").path("id").asString();
		stream.sendPart("{\"type\":\"complete\",\"ref\":\"1\",\"leaseId\":\"" + leaseId + "\",\"body\":{\"epoch\":"
				+ pushed.path("lease").path("epoch").asLong());
		stream.cut();
		Eventually.until("the service sees the stream closed", WAIT, Duration.ofMillis(20),
				() -> this.streams.size() == 0);
		Integer active = this.jdbc.sql("select count(*) from leases where id = cast(:id as uuid)")
			.param("id", leaseId)
			.query(Integer.class)
			.single();
		assertThat(active).as("the lease of a dropped stream is still held: it expires as any lease").isEqualTo(1);
		// The worker may go on with it over another connection (or plain HTTP).
		try (StreamConnection again = StreamConnection.open(this.port, null)) {
			JsonNode completed = again.request("complete", leaseId,
					Map.of("epoch", pushed.path("lease").path("epoch").asLong()));
			assertThat(completed.path("status").asInt()).as(completed.toString()).isEqualTo(200);
		}
	}

	/**
	 * The container reads a message in fragments of a small buffer (a buffer the size of
	 * the largest message, allocated for every stream, ran a dozen streams out of heap):
	 * a message of many fragments is put together, and one past the limit closes the
	 * stream with 1009.
	 */
	@Test
	void aMessageOfManyFragmentsIsPutTogetherAndOnePastTheLimitClosesTheStream() throws Exception {
		createItem("large checkpoint", "queue", "large");
		String page = "x".repeat(5 * WorkerStreamConfiguration.FRAGMENT_BUFFER_CHARS + 17);
		try (StreamConnection stream = StreamConnection.open(this.port, null)) {
			stream.hello(Map.of("workerId", "large-worker", "queues", List.of("large")));
			stream.credit(1);
			JsonNode pushed = stream.nextLease(WAIT);
			String leaseId = pushed.path("lease").path("id").asString();
			long epoch = pushed.path("lease").path("epoch").asLong();

			JsonNode checkpoint = stream.request("checkpoint", leaseId,
					Map.of("epoch", epoch, "data", Map.of("page", page)));
			assertThat(checkpoint.path("status").asInt()).as("%.300s", checkpoint).isEqualTo(201);
			String stored = this.jdbc.sql("select data ->> 'page' from checkpoints").query(String.class).single();
			assertThat(stored).isEqualTo(page);

			stream.sendText("{\"type\":\"renew\",\"body\":\"" + "y".repeat(WorkerStreamConfiguration.MAX_MESSAGE_BYTES)
					+ "\"}");
			assertThat(stream.awaitClosed(WAIT)).isEqualTo(1009);
		}
	}

	@Test
	void aClosedStreamIsGrantedNothingMore() throws Exception {
		List<StreamConnection> opened = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			StreamConnection stream = StreamConnection.open(this.port, null);
			stream.hello(Map.of("workerId", "closing-" + i, "queues", List.of("closing"), "leaseSeconds", 3600));
			stream.credit(3);
			opened.add(stream);
		}
		Eventually.until("every stream is open", WAIT, Duration.ofMillis(10), () -> this.streams.size() == 8);
		for (int i = 0; i < 4; i++) {
			opened.get(i).cut();
		}
		for (int i = 4; i < 8; i++) {
			opened.get(i).close();
		}
		Eventually.until("every stream is closed", WAIT, Duration.ofMillis(20), () -> this.streams.size() == 0);
		for (int i = 0; i < 10; i++) {
			createItem("closing " + i, "queue", "closing");
		}
		Thread.sleep(500);
		Integer held = this.jdbc.sql("select count(*) from leases").query(Integer.class).single();
		assertThat(held).as("leases granted to closed streams").isZero();
	}

}
