package dev.workgraph.lease.stream;

import java.net.http.HttpResponse;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.ServiceTest;
import dev.workgraph.testing.StreamConnection;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One token holds at most {@code workgraph.stream.max-streams-per-token} streams on an
 * instance (3 here): one more is refused at the handshake with 429
 * {@code too_many_streams}; a stream gives its slot back once however it closes; other
 * tokens are not affected; and streams of one token opened and closed from many threads
 * at once never leave the count above the cap, nor anything behind.
 */
@TestPropertySource(properties = { "workgraph.security.enabled=true",
		"workgraph.security.bootstrap-admin-token=" + StreamsPerTokenTests.ADMIN_TOKEN,
		"workgraph.stream.max-streams-per-token=" + StreamsPerTokenTests.MAX })
class StreamsPerTokenTests extends ServiceTest {

	static final String ADMIN_TOKEN = "streams-per-token-bootstrap-admin";

	static final int MAX = 3;

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Autowired
	private WorkerStreams streams;

	@Test
	void theStreamPastTheCapIsRefusedWith429AndAnotherTokenIsNot() {
		Token worker = issue("capped");
		Token other = issue("capped-other");
		List<StreamConnection> held = openAll(worker, MAX);

		HttpResponse<?> refused = StreamConnection.refusal(this.port, worker.secret());
		assertThat(refused).as("the stream past the cap opened").isNotNull();
		assertThat(refused.statusCode()).isEqualTo(429);
		JsonNode problem = JSON.readTree(String.valueOf(refused.body()));
		assertThat(problem.path("code").asString()).isEqualTo("too_many_streams");
		assertThat(problem.path("status").asInt()).isEqualTo(429);
		assertThat(problem.path("detail").asString()).contains("workgraph.stream.max-streams-per-token");
		assertThat(this.streams.openBy(worker.id())).isEqualTo(MAX);

		List<StreamConnection> others = openAll(other, MAX);
		JsonNode welcome = others.getFirst().hello(Map.of("queues", List.of("capped")));
		assertThat(welcome.path("status").asInt()).as(welcome.toString()).isEqualTo(200);
		held.forEach(StreamConnection::close);
		others.forEach(StreamConnection::close);
		awaitNoneOpenBy(worker);
		awaitNoneOpenBy(other);
	}

	@Test
	void aStreamGivesItsSlotBackHoweverItCloses() {
		Token worker = issue("slots");
		List<StreamConnection> held = new ArrayList<>(openAll(worker, MAX));

		held.removeFirst().close();
		held.add(openWhenRoom(worker));

		held.removeFirst().cut();
		held.add(openWhenRoom(worker));

		// Closed by the service: a message past the limit (1009).
		StreamConnection tooBig = held.removeFirst();
		tooBig.sendText(
				"{\"type\":\"renew\",\"body\":\"" + "y".repeat(WorkerStreamConfiguration.MAX_MESSAGE_BYTES) + "\"}");
		assertThat(tooBig.awaitClosed(WAIT)).isEqualTo(1009);
		held.add(openWhenRoom(worker));
		assertThat(StreamConnection.refusedHandshake(this.port, worker.secret())).isEqualTo(429);

		// Closed by the revocation (4401): every slot comes back.
		assertThat(this.api.as(ADMIN_TOKEN).delete("/tokens/" + worker.id()).status()).isEqualTo(204);
		for (StreamConnection stream : held) {
			assertThat(stream.awaitClosed(WAIT)).isEqualTo(4401);
		}
		awaitNoneOpenBy(worker);
	}

	/**
	 * Many threads open streams of one token, and close them politely or cut them, at
	 * once: the count never passes the cap (a handshake that raced past the check is
	 * closed with 4429 when it opens), and ends at none.
	 */
	@Test
	void streamsOpenedAndClosedFromManyThreadsNeverLeaveTheCountWrong() throws Exception {
		Token worker = issue("churn");
		AtomicBoolean churning = new AtomicBoolean(true);
		AtomicInteger mostSeen = new AtomicInteger();
		Thread watcher = Thread.ofPlatform().start(() -> {
			while (churning.get()) {
				mostSeen.accumulateAndGet(this.streams.openBy(worker.id()), Math::max);
				LockSupport.parkNanos(50_000);
			}
		});
		Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
		try (ExecutorService threads = Executors.newFixedThreadPool(16)) {
			List<Future<?>> running = new ArrayList<>();
			for (int t = 0; t < 16; t++) {
				running.add(threads.submit(() -> {
					for (int i = 0; i < 20; i++) {
						outcomes.computeIfAbsent(churn(worker), (key) -> new AtomicInteger()).incrementAndGet();
					}
					return null;
				}));
			}
			for (Future<?> thread : running) {
				thread.get();
			}
		}
		awaitNoneOpenBy(worker);
		churning.set(false);
		watcher.join();
		assertThat(mostSeen.get()).as("most streams the token held at once (%s)", outcomes).isBetween(1, MAX);
		assertThat(outcomes.keySet()).as("how the attempts ended").containsAnyOf("refused 429", "closed 4429");
		assertThat(outcomes.keySet()).isSubsetOf("worked", "refused 429", "closed 4429");
		assertThat(this.streams.size()).isZero();
		// Nothing is left counted: exactly the cap opens again.
		List<StreamConnection> again = openAll(worker, MAX);
		assertThat(StreamConnection.refusedHandshake(this.port, worker.secret())).isEqualTo(429);
		again.forEach(StreamConnection::close);
		awaitNoneOpenBy(worker);
	}

	/** Opens a stream, uses it briefly and ends it (politely or not); how it went. */
	private String churn(Token worker) throws InterruptedException {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		StreamConnection stream;
		try {
			stream = StreamConnection.open(this.port, worker.secret());
		}
		catch (CompletionException ex) {
			assertThat(ex.getCause()).isInstanceOf(WebSocketHandshakeException.class);
			assertThat(((WebSocketHandshakeException) ex.getCause()).getResponse().statusCode()).isEqualTo(429);
			return "refused 429";
		}
		try {
			if (random.nextBoolean()) {
				stream.requestAsync("hello", null, Map.of("queues", List.of("churn")));
			}
			Thread.sleep(random.nextInt(5));
		}
		catch (CompletionException ex) {
			// Closed already: past the cap, see below.
		}
		Integer closedBy = stream.awaitClosed(Duration.ofMillis(1));
		if (closedBy != null) {
			assertThat(closedBy).isEqualTo(4429);
			return "closed 4429";
		}
		if (random.nextBoolean()) {
			stream.close();
		}
		else {
			stream.cut();
		}
		return "worked";
	}

	private List<StreamConnection> openAll(Token worker, int count) {
		List<StreamConnection> opened = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			opened.add(StreamConnection.open(this.port, worker.secret()));
		}
		// The service counts a stream once it is open, just after the handshake answered.
		Eventually.until(count + " streams counted", WAIT, Duration.ofMillis(10),
				() -> this.streams.openBy(worker.id()) == count);
		return opened;
	}

	/** Opens a stream once a slot of the token is free again. */
	private StreamConnection openWhenRoom(Token worker) {
		Eventually.until("a slot given back", WAIT, Duration.ofMillis(10),
				() -> this.streams.openBy(worker.id()) == MAX - 1);
		StreamConnection stream = StreamConnection.open(this.port, worker.secret());
		Eventually.until("the stream counted", WAIT, Duration.ofMillis(10),
				() -> this.streams.openBy(worker.id()) == MAX);
		return stream;
	}

	private void awaitNoneOpenBy(Token worker) {
		Eventually.until("every stream of the token given back", WAIT, Duration.ofMillis(10),
				() -> this.streams.openBy(worker.id()) == 0);
	}

	private Token issue(String workerId) {
		Api.Response created = this.api.as(ADMIN_TOKEN)
			.post("/tokens", Map.of("name", workerId, "role", "worker", "workerId", workerId));
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		return new Token(UUID.fromString(created.body().path("id").asString()),
				created.body().path("token").asString());
	}

	private record Token(UUID id, String secret) {

		@Override
		public String toString() {
			return "token " + this.id; // never the secret
		}

	}

}
