package dev.workgraph.item;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import dev.workgraph.WorkGraphApplication;
import dev.workgraph.notification.NotificationListener;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Long-poll claims ({@code waitSeconds}, docs/adr/0008) against the real service and a
 * second instance on the same database. The second instance re-checks on its own only
 * every ten minutes and waits two seconds before it reconnects its listener, so what
 * wakes its waiters within a test is a notification or the re-check after a reconnect.
 */
class LongPollClaimTests extends LeaseTestSupport {

	private static ConfigurableApplicationContext secondInstance;

	private final ExecutorService background = Executors.newVirtualThreadPerTaskExecutor();

	@Autowired
	private ReadyWaiters waiters;

	@Autowired
	private javax.sql.DataSource dataSource;

	@BeforeAll
	static void startSecondInstance() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		secondInstance = new SpringApplicationBuilder(WorkGraphApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=" + database.username(),
				"--spring.datasource.password=" + database.password(),
				"--spring.datasource.hikari.pool-name=second-instance", "--workgraph.lease.reaper-enabled=false",
				"--workgraph.lease.vacuum-interval=0s", "--workgraph.notifications.recheck-interval=10m",
				"--workgraph.notifications.min-reconnect-delay=2s", "--workgraph.security.enabled=false");
	}

	@AfterAll
	static void stopSecondInstance() {
		if (secondInstance != null) {
			secondInstance.close();
		}
	}

	@AfterEach
	void stopBackground() {
		this.background.shutdownNow();
	}

	private static Api second() {
		return new Api(((WebServerApplicationContext) secondInstance).getWebServer().getPort());
	}

	private static ReadyWaiters secondWaiters() {
		return secondInstance.getBean(ReadyWaiters.class);
	}

	private static NotificationListener secondListener() {
		return secondInstance.getBean(NotificationListener.class);
	}

	@Test
	void waitSecondsOutsideZeroToSixtyIsRejectedWithTheBounds() {
		createItem("waiting for a valid claim", "queue", "bounds");
		for (Object wait : List.of(-1, 61, 3600)) {
			Api.Response rejected = this.api.post("/claims",
					Map.of("workerId", "w", "queues", List.of("bounds"), "waitSeconds", wait));
			assertProblem(rejected, 422, "validation_failed");
			assertThat(rejected.raw().body()).contains("waitSeconds").contains("between 0 and 60");
		}
		assertThat(count("select count(*) from leases")).isZero();
	}

	@Test
	void aClaimThatFindsAnItemDoesNotWaitAndZeroMeansNoWait() {
		UUID item = createItem("already ready", "queue", "now");
		JsonNode claimed = claim(Map.of("workerId", "w", "queues", List.of("now"), "waitSeconds", 30));
		assertThat(itemId(claimed)).isEqualTo(item);
		Api.Response empty = this.api.post("/claims",
				Map.of("workerId", "w", "queues", List.of("now"), "waitSeconds", 0));
		assertThat(empty.status()).isEqualTo(204);
	}

	@Test
	void aWaitThatEndsWithNothingReadyAnswers204AfterTheWait() {
		long start = System.nanoTime();
		Api.Response empty = this.api.post("/claims",
				Map.of("workerId", "w", "queues", List.of("quiet"), "waitSeconds", 1));
		assertThat(empty.status()).isEqualTo(204);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
		assertThat(waiting(this.waiters, "quiet")).isZero();
	}

	@Test
	void aWaitingClaimIsWokenByAnItemCreatedThroughTheOtherInstance() throws Exception {
		Future<Api.Response> onSecond = waitingClaim(second(), "second-waiter", "shared", 30);
		Future<Api.Response> onFirst = waitingClaim(this.api, "first-waiter", "shared", 30);
		await(() -> waiting(secondWaiters(), "shared") == 1 && waiting(this.waiters, "shared") == 1);
		UUID first = createItem("created through the first", "queue", "shared");
		UUID second = UUID
			.fromString(second().post("/items", Map.of("title", "created through the second", "queue", "shared"))
				.body()
				.path("id")
				.asString());
		List<UUID> claimed = List.of(itemId(onSecond.get(20, TimeUnit.SECONDS).body()),
				itemId(onFirst.get(20, TimeUnit.SECONDS).body()));
		assertThat(claimed).containsExactlyInAnyOrder(first, second);
	}

	@Test
	void itemsReadiedByALeaseEndWakeWaitersToo() throws Exception {
		UUID item = createItem("released", "queue", "again");
		JsonNode claimed = claimFrom("again", "first");
		Future<Api.Response> waiting = waitingClaim(second(), "next", "again", 30);
		await(() -> waiting(secondWaiters(), "again") == 1);
		assertOk(release(claimed));
		Api.Response next = waiting.get(20, TimeUnit.SECONDS);
		assertThat(next.status()).isEqualTo(201);
		assertThat(itemId(next.body())).isEqualTo(item);
		assertThat(epoch(next.body())).isEqualTo(2);
	}

	@Test
	void waitersOfTheSameQueuesAreServedInArrivalOrder() throws Exception {
		List<Future<Api.Response>> waiting = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			waiting.add(waitingClaim(second(), "waiter-" + i, "ordered", 30));
			int arrived = i + 1;
			await(() -> waiting(secondWaiters(), "ordered") == arrived);
		}
		// A waiter of another filter waits beside them and is not served from "ordered".
		Future<Api.Response> other = waitingClaim(second(), "other", "elsewhere", 2);
		List<UUID> created = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			created.add(createItem("ordered " + i, "queue", "ordered"));
		}
		List<UUID> served = new ArrayList<>();
		for (Future<Api.Response> claim : waiting) {
			Api.Response response = claim.get(20, TimeUnit.SECONDS);
			assertThat(response.status()).as(response.toString()).isEqualTo(201);
			served.add(itemId(response.body()));
		}
		assertThat(served).as("the first to wait gets the first item").containsExactlyElementsOf(created);
		assertThat(other.get(20, TimeUnit.SECONDS).status()).isEqualTo(204);
	}

	@Test
	void aWaiterWhoseClientDisconnectedHoldsNoLeaseAndTheNextWaiterGetsTheItem() throws Exception {
		byte[] body = "{\"workerId\":\"gone\",\"queues\":[\"abandoned\"],\"waitSeconds\":30}"
			.getBytes(StandardCharsets.UTF_8);
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			OutputStream out = socket.getOutputStream();
			out.write(("POST /claims HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
					+ "Content-Length: " + body.length + "\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.write(body);
			out.flush();
			await(() -> waiting(this.waiters, "abandoned") == 1);
		}
		Future<Api.Response> alive = waitingClaim(this.api, "alive", "abandoned", 30);
		await(() -> waiting(this.waiters, "abandoned") == 2);
		UUID item = createItem("for whoever is still there", "queue", "abandoned");
		Api.Response claimed = alive.get(20, TimeUnit.SECONDS);
		assertThat(claimed.status()).as(claimed.toString()).isEqualTo(201);
		assertThat(itemId(claimed.body())).isEqualTo(item);
		assertThat(count("select count(*) from leases where worker_id = 'gone'")).isZero();
		assertThat(count("select count(*) from lease_history where worker_id = 'gone' and outcome <> 'released'"))
			.isZero();
		assertThat(count("select count(*) from leases where worker_id = 'alive'")).isOne();
	}

	@Test
	void aKilledListenerReconnectsAndItsWaitersLoseNoWakeUp() throws Exception {
		await(() -> secondListener().isListening());
		Future<Api.Response> waiting = waitingClaim(second(), "patient", "through-restart", 45);
		await(() -> waiting(secondWaiters(), "through-restart") == 1);
		long killed = count("select count(pg_terminate_backend(pid)) from pg_stat_activity "
				+ "where application_name = 'work-graph-listener' and datname = current_database()");
		assertThat(killed).isGreaterThanOrEqualTo(2);
		await(() -> !secondListener().isListening());
		// Made ready while the second instance has nobody listening: its notification is
		// lost there.
		UUID item = createItem("while the listener is down", "queue", "through-restart");
		assertThat(secondListener().isListening()).isFalse();
		Api.Response claimed = waiting.get(30, TimeUnit.SECONDS);
		assertThat(claimed.status()).as(claimed.toString()).isEqualTo(201);
		assertThat(itemId(claimed.body())).isEqualTo(item);
		// Both instances listen again (the first reconnects sooner than the second).
		await(() -> count("select count(*) from pg_stat_activity where application_name = 'work-graph-listener' "
				+ "and datname = current_database()") >= 2, this::sessions);
		// Notifications flow again after the reconnect.
		Future<Api.Response> next = waitingClaim(second(), "patient", "through-restart", 45);
		await(() -> waiting(secondWaiters(), "through-restart") == 1);
		UUID after = createItem("after the reconnect", "queue", "through-restart");
		assertThat(itemId(next.get(20, TimeUnit.SECONDS).body())).isEqualTo(after);
	}

	@Test
	void aThousandWaitingClaimsHoldNoDatabaseConnectionAndEachGetsADistinctItem() throws Exception {
		int waiting = 1000;
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		List<Future<HttpResponse<String>>> claims = new ArrayList<>();
		for (int i = 0; i < waiting; i++) {
			HttpRequest claim = HttpRequest.newBuilder(URI.create(this.api.base() + "/claims"))
				.header("Content-Type", "application/json")
				.timeout(Duration.ofSeconds(90))
				.POST(HttpRequest.BodyPublishers
					.ofString("{\"workerId\":\"idle-" + i + "\",\"queues\":[\"thousand\"],\"waitSeconds\":60}"))
				.build();
			claims.add(http.sendAsync(claim, HttpResponse.BodyHandlers.ofString()));
		}
		await(() -> waiting(this.waiters, "thousand") == waiting,
				() -> waiting(this.waiters, "thousand") + " of " + waiting + " waiting");
		int active = ((HikariDataSource) this.dataSource).getHikariPoolMXBean().getActiveConnections();
		// The head of the group may be re-checking at this moment; nobody else may hold
		// one.
		assertThat(active).as("pool connections in use by %d waiting claims", waiting).isLessThanOrEqualTo(1);
		assertThat(count("select count(*) from pg_stat_activity where datname = current_database() "
				+ "and state = 'active' and application_name = 'work-graph'"))
			.as("busy sessions of the pools")
			.isLessThanOrEqualTo(2);
		createItem("plan", "queue", "plans");
		assertCreated(decompose(claimFrom("plans", "planner"),
				IntStream.range(0, waiting).mapToObj((i) -> child("k" + i, "queue", "thousand")).toList()));
		List<UUID> served = new ArrayList<>();
		for (Future<HttpResponse<String>> claim : claims) {
			HttpResponse<String> response = claim.get(90, TimeUnit.SECONDS);
			assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
			served
				.add(UUID.fromString(JsonMapper.shared().readTree(response.body()).path("item").path("id").asString()));
		}
		assertThat(served).doesNotHaveDuplicates().hasSize(waiting);
	}

	private Future<Api.Response> waitingClaim(Api instance, String workerId, String queue, int waitSeconds) {
		return this.background.submit(() -> instance.post("/claims",
				Map.of("workerId", workerId, "queues", List.of(queue), "waitSeconds", waitSeconds)));
	}

	private static int waiting(ReadyWaiters waiters, String queue) {
		return waiters.waiting(List.of(queue));
	}

	/** The database's sessions, for a failure message. */
	private String sessions() {
		return this.jdbc
			.sql("select pid, application_name, state, backend_start from pg_stat_activity "
					+ "where datname = current_database() order by backend_start")
			.query((rs, n) -> rs.getInt(1) + " " + rs.getString(2) + " " + rs.getString(3) + " " + rs.getString(4))
			.list()
			.toString();
	}

	private static void await(BooleanSupplier condition) throws InterruptedException {
		await(condition, () -> "condition met in time");
	}

	private static void await(BooleanSupplier condition, Supplier<String> state) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime() - deadline).as(state).isNegative();
			Thread.sleep(10);
		}
	}

}
