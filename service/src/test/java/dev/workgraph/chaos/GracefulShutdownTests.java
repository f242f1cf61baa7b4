package dev.workgraph.chaos;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGTERM to a service under load, as {@code docker stop} or Kubernetes sends it. The
 * service is a separate process on a throwaway cluster. Workers claim and complete items
 * from several threads; the lease reaper is working through a backlog of expired leases,
 * slowed down by a trigger so that it is certainly mid-pass; and claims are held in
 * flight by a lock the test takes on the claim queue. Then SIGTERM, and:
 * <ul>
 * <li>every request sent before it is answered (the held claims after it), none
 * reset;</li>
 * <li>new connections are refused, and a request on an open keep-alive connection gets
 * 503;</li>
 * <li>the reaper stops between batches: whole batches only, backlog left for later;</li>
 * <li>nothing is lost (every acknowledged claim and completion is in the database) or
 * granted twice (one lease per item and epoch, epochs increasing);</li>
 * <li>the process exits within the configured grace period.</li>
 * </ul>
 */
class GracefulShutdownTests {

	/** {@code spring.lifecycle.timeout-per-shutdown-phase} in application.yml. */
	private static final Duration GRACE_PERIOD = Duration.ofSeconds(20);

	private static final int REAPER_BATCH = 50;

	private static final int STALLED_LEASES = 8 * REAPER_BATCH;

	private static final int WORK_ITEMS = 600;

	private static final int WORKERS = 6;

	private static final String SLOW_EXPIRY = """
			create function slow_expiry() returns trigger language plpgsql as $$
			begin
			    perform pg_sleep(0.025);
			    return new;
			end $$;
			create trigger slow_expiry before insert on lease_history
			    for each row when (new.outcome = 'expired') execute function slow_expiry();
			""";

	private static final String EXPIRE_STALLED_LEASES = """
			update leases set expires_at = now() - interval '1 second', acquired_at = now() - interval '1 minute'
			where item_id in (select id from work_items where queue = 'stalled')
			""";

	private static final String EXPIRIES_RECORDED = "select count(*) from lease_history where outcome = 'expired'";

	private static final String WAITING_FOR_LOCKS = """
			select count(*) from pg_stat_activity
			where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()
			""";

	private static final String LEASES = """
			select id as lease_id, item_id, epoch, acquired_at, null as outcome from leases
			union all
			select lease_id, item_id, epoch, acquired_at, outcome from lease_history
			""";

	private static final String EPOCHS_OUT_OF_ORDER = """
			select count(*) from (
			    select epoch, lag(epoch) over (partition by item_id order by acquired_at, epoch) as previous
			    from (select item_id, epoch, acquired_at from leases
			          union all select item_id, epoch, acquired_at from lease_history) l
			) e where epoch <= previous
			""";

	private static final String ITEM_EPOCH_BEHIND_LEASES = """
			select count(*) from work_items w
			where w.epoch <> coalesce((select max(epoch) from (select item_id, epoch from leases
			                            union all select item_id, epoch from lease_history) l where l.item_id = w.id), 0)
			""";

	private final List<Exchange> exchanges = Collections.synchronizedList(new ArrayList<>());

	private volatile boolean terminating;

	@Test
	void sigtermUnderLoadAnswersWhatIsInFlightRefusesTheRestAndLosesNothing() throws Exception {
		try (ThrowawayPostgres postgres = ThrowawayPostgres.start()) {
			postgres.createDatabase("workgraph_shutdown");
			Path log = Path.of("target", "graceful-shutdown", "service.log");
			Files.deleteIfExists(log);
			ServiceInstance service = new ServiceInstance("graceful",
					Map.of("spring.datasource.url", postgres.jdbcUrl("workgraph_shutdown"),
							"spring.datasource.username", "postgres", "spring.datasource.password", "",
							"workgraph.lease.reaper-batch-size", Integer.toString(REAPER_BATCH),
							"workgraph.lease.reaper-interval", "200ms", "spring.main.banner-mode", "off",
							"workgraph.security.enabled", "false"),
					Map.of(), "the machine's clock", log);
			service.start();
			try (Connection db = postgres.connect("workgraph_shutdown");
					Connection observer = postgres.connect("workgraph_shutdown")) {
				runScenario(service, db, observer);
			}
			finally {
				service.kill();
			}
		}
	}

	private void runScenario(ServiceInstance service, Connection db, Connection observer) throws Exception {
		Api api = new Api(service.port());
		seed(api);
		ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
		List<Future<?>> running = IntStream.range(0, WORKERS)
			.mapToObj((i) -> workers.submit(() -> work(new Api(service.port()), "worker-" + i)))
			.collect(Collectors.toList());

		// The reaper works through the backlog, one slow batch after another.
		execute(db, SLOW_EXPIRY);
		execute(db, EXPIRE_STALLED_LEASES);
		await("the reaper's first batch", () -> count(db, EXPIRIES_RECORDED) >= REAPER_BATCH);

		// Hold claims (and the reaper's next batch) in flight: they wait for the queue.
		HttpClient keptAlive = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		assertThat(get(keptAlive, service, "/actuator/health")).isEqualTo(200);
		db.setAutoCommit(false);
		execute(db, "lock table ready_items in share mode");
		await("every worker's claim waiting for the queue",
				() -> count(observer, WAITING_FOR_LOCKS) >= 2 && claimsInFlight() == WORKERS);

		// Workers read the flag after taking a request's time: all they send is sent
		// before.
		this.terminating = true;
		long terminatedAt = System.nanoTime();
		service.terminate();

		// New requests are turned away unread: new connections are refused; Tomcat closes
		// idle kept-alive connections, so a request on one is refused (the client saw the
		// close and reconnected), closed unanswered (it did not) or answered 503.
		await("the listening socket to close", () -> refusesConnections(service));
		assertThat(createItem(keptAlive, service, "sent on a kept-alive connection after SIGTERM"))
			.as("a request on a connection kept alive from before")
			.isIn("refused", "closed unanswered", "503");
		assertThat(createItem(HttpClient.newHttpClient(), service, "sent on a new connection after SIGTERM"))
			.as("a request on a new connection")
			.isEqualTo("refused");
		assertThat(service.alive()).as("still draining the held requests").isTrue();

		db.commit();
		db.setAutoCommit(true);
		OptionalInt exit = service.awaitExit(GRACE_PERIOD.plusSeconds(30));
		Duration shutdown = Duration.ofNanos(System.nanoTime() - terminatedAt);
		for (Future<?> worker : running) {
			worker.get(30, TimeUnit.SECONDS);
		}
		workers.shutdown();

		assertThat(exit).as("exited (143: after SIGTERM and its shutdown hooks)").hasValue(143);
		assertThat(shutdown).as("shutdown took").isLessThan(GRACE_PERIOD);
		assertEveryRequestSentBeforeSigtermWasAnswered(terminatedAt);
		assertNothingLostOrGrantedTwice(db);
		assertReaperStoppedBetweenBatches(db, service.output());
		assertThat(count(db, "select count(*) from work_items where title like '%after SIGTERM'"))
			.as("items created by requests sent after SIGTERM")
			.isZero();
		assertThat(service.output()).contains("Graceful shutdown complete").doesNotContain("Graceful shutdown aborted");
	}

	private void seed(Api api) {
		IntStream.range(0, WORK_ITEMS)
			.parallel()
			.forEach((i) -> assertThat(api.post("/items", Map.of("title", "work " + i, "queue", "work")).status())
				.isEqualTo(201));
		IntStream.range(0, STALLED_LEASES).parallel().forEach((i) -> {
			assertThat(api.post("/items", Map.of("title", "stalled " + i, "queue", "stalled")).status()).isEqualTo(201);
			assertThat(api
				.post("/claims", Map.of("workerId", "stalled-" + i, "queues", List.of("stalled"), "leaseSeconds", 3600))
				.status()).isEqualTo(201);
		});
	}

	/** Claim, complete, repeat; no new request once SIGTERM has been sent. */
	private void work(Api api, String workerId) {
		while (true) {
			Exchange claim = send("claim", null, () -> api.post("/claims",
					Map.of("workerId", workerId, "queues", List.of("work"), "leaseSeconds", 60)));
			if (claim == null) {
				return;
			}
			if (claim.status == 201) {
				Exchange completion = send("complete", claim,
						() -> api.post("/leases/" + claim.leaseId + "/complete", Map.of("epoch", claim.epoch)));
				if (completion == null) {
					return;
				}
			}
		}
	}

	private long claimsInFlight() {
		synchronized (this.exchanges) {
			return this.exchanges.stream().filter((e) -> e.kind.equals("claim") && e.answeredAt == 0).count();
		}
	}

	/** Sends the request unless SIGTERM has been sent; null when it was not sent. */
	private Exchange send(String kind, Exchange claim, Supplier<Api.Response> request) {
		Exchange exchange = new Exchange(kind, claim, System.nanoTime());
		if (this.terminating) {
			return null;
		}
		this.exchanges.add(exchange);
		try {
			Api.Response response = request.get();
			exchange.answered(response);
		}
		catch (IllegalStateException ex) {
			exchange.failed(ex);
		}
		return exchange;
	}

	private void assertEveryRequestSentBeforeSigtermWasAnswered(long terminatedAt) {
		List<Exchange> before = this.exchanges.stream().filter((e) -> e.sentAt < terminatedAt).toList();
		assertThat(before).allSatisfy((e) -> assertThat(e.failure).as(e.kind + " sent before SIGTERM").isNull());
		List<Exchange> answeredAfter = before.stream().filter((e) -> e.answeredAt > terminatedAt).toList();
		assertThat(answeredAfter).as("requests in flight at SIGTERM, answered during the drain").hasSizeGreaterThan(2);
		assertThat(answeredAfter).filteredOn((e) -> e.kind.equals("claim"))
			.allSatisfy((e) -> assertThat(e.status).isIn(201, 204));
	}

	private void assertNothingLostOrGrantedTwice(Connection db) throws SQLException {
		Map<UUID, LeaseRow> leases = new HashMap<>();
		try (Statement statement = db.createStatement(); ResultSet rows = statement.executeQuery(LEASES)) {
			while (rows.next()) {
				LeaseRow row = new LeaseRow(rows.getObject("item_id", UUID.class), rows.getLong("epoch"),
						rows.getString("outcome"));
				assertThat(leases.put(rows.getObject("lease_id", UUID.class), row)).isNull();
			}
		}
		List<Exchange> claims = this.exchanges.stream()
			.filter((e) -> e.kind.equals("claim") && e.status == 201)
			.toList();
		List<Exchange> completions = this.exchanges.stream()
			.filter((e) -> e.kind.equals("complete") && e.status == 200)
			.toList();
		assertThat(claims).as("claims granted").hasSizeGreaterThan(WORKERS);
		assertThat(completions).as("completions acknowledged").isNotEmpty();
		for (Exchange claim : claims) {
			assertThat(leases.get(claim.leaseId)).as("acknowledged claim " + claim.leaseId)
				.isNotNull()
				.satisfies((row) -> assertThat(row.itemId()).isEqualTo(claim.itemId))
				.satisfies((row) -> assertThat(row.epoch()).isEqualTo(claim.epoch));
		}
		for (Exchange completion : completions) {
			UUID leaseId = completion.claim.leaseId;
			assertThat(leases.get(leaseId).outcome()).as("acknowledged completion of " + leaseId)
				.isEqualTo("completed");
			assertThat(itemStatus(db, completion.claim.itemId)).isEqualTo("completed");
		}
		assertThat(leases.values().stream().map((row) -> row.itemId() + "@" + row.epoch()).distinct().count())
			.as("one lease per item and epoch")
			.isEqualTo(leases.size());
		assertThat(count(db, EPOCHS_OUT_OF_ORDER)).as("epochs that did not increase").isZero();
		assertThat(count(db, ITEM_EPOCH_BEHIND_LEASES)).as("items whose epoch is not their last lease's").isZero();
	}

	private void assertReaperStoppedBetweenBatches(Connection db, String log) throws SQLException {
		long recorded = count(db, EXPIRIES_RECORDED);
		assertThat(recorded % REAPER_BATCH).as("expiries recorded (%d) in whole batches", recorded).isZero();
		assertThat(recorded).as("backlog left for the next start").isLessThan(STALLED_LEASES);
		assertThat(log).contains("Lease reaper stopped between batches").doesNotContain("Lease reaper pass failed");
	}

	private static String itemStatus(Connection db, UUID itemId) throws SQLException {
		try (PreparedStatement statement = db.prepareStatement("select status from work_items where id = ?")) {
			statement.setObject(1, itemId);
			try (ResultSet rows = statement.executeQuery()) {
				rows.next();
				return rows.getString(1);
			}
		}
	}

	private static boolean refusesConnections(ServiceInstance service) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", service.port()), 1000);
			return false;
		}
		catch (ConnectException ex) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int get(HttpClient client, ServiceInstance service, String path)
			throws IOException, InterruptedException {
		return client
			.send(HttpRequest.newBuilder(URI.create(service.base() + path)).timeout(Duration.ofSeconds(10)).build(),
					HttpResponse.BodyHandlers.discarding())
			.statusCode();
	}

	/**
	 * POSTs an item: the status, "refused" when no connection could be made, or "closed
	 * unanswered" when the connection closed before any response.
	 */
	private static String createItem(HttpClient client, ServiceInstance service, String title)
			throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create(service.base() + "/items"))
			.timeout(Duration.ofSeconds(10))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"" + title + "\"}"))
			.build();
		try {
			return Integer.toString(client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode());
		}
		catch (ConnectException ex) {
			return "refused";
		}
		catch (IOException ex) {
			if (ex.getMessage() != null && ex.getMessage().contains("received no bytes")) {
				return "closed unanswered";
			}
			throw ex;
		}
	}

	private static void execute(Connection db, String sql) throws SQLException {
		try (Statement statement = db.createStatement()) {
			statement.execute(sql);
		}
	}

	private static long count(Connection db, String sql) {
		try (Statement statement = db.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
			rows.next();
			return rows.getLong(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void await(String what, BooleanSupplier condition) {
		Eventually.until(what, Duration.ofSeconds(60), Duration.ofMillis(20), condition);
	}

	private record LeaseRow(UUID itemId, long epoch, String outcome) {
	}

	/** One request and what came of it. */
	private static final class Exchange {

		final String kind;

		/** The claim whose lease a completion ends. */
		final Exchange claim;

		final long sentAt;

		volatile long answeredAt;

		volatile int status;

		volatile Exception failure;

		volatile UUID leaseId;

		volatile UUID itemId;

		volatile long epoch;

		Exchange(String kind, Exchange claim, long sentAt) {
			this.kind = kind;
			this.claim = claim;
			this.sentAt = sentAt;
		}

		void answered(Api.Response response) {
			this.answeredAt = System.nanoTime();
			this.status = response.status();
			if (this.status == 201) {
				this.leaseId = UUID.fromString(response.body().path("lease").path("id").asString());
				this.epoch = response.body().path("lease").path("epoch").asLong();
				this.itemId = UUID.fromString(response.body().path("item").path("id").asString());
			}
		}

		void failed(Exception ex) {
			this.answeredAt = System.nanoTime();
			this.failure = ex;
		}

	}

}
