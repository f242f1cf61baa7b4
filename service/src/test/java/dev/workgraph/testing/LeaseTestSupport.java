package dev.workgraph.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import dev.workgraph.lease.expiry.LeaseReaper;
import org.junit.jupiter.api.AfterEach;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fixtures shared by the lease and attention tests: the lease mutations as the API names
 * them, problem assertions, history reads, and the reaper (never scheduled in tests).
 */
public abstract class LeaseTestSupport extends ServiceTest {

	@Autowired
	protected LeaseReaper reaper;

	/**
	 * Every worker-side mutation that must present a current lease (docs/http-api.md,
	 * "Fencing").
	 */
	public enum Mutation {

		RENEW("renew"), COMPLETE("complete"), RELEASE("release"), RELEASE_WITH_A_DELAY("release"), CANCEL("cancel"),
		DECOMPOSE("decompose"), BLOCKING_ATTENTION_REQUEST("attention-requests"),
		NON_BLOCKING_ATTENTION_REQUEST("attention-requests"), CHECKPOINT("checkpoints"),
		CHECKPOINT_AND_RENEW("checkpoints"), FAIL("fail"), FAIL_FOR_GOOD("fail"), HANDOFF("handoff"), WAIT("waits"),
		WAIT_WITH_DEADLINE("waits");

		private final String path;

		Mutation(String path) {
			this.path = path;
		}

		/** A body that would succeed if the lease were current. */
		public Map<String, Object> body(long epoch) {
			return switch (this) {
				case RENEW -> Map.of("epoch", epoch, "leaseSeconds", 120);
				case COMPLETE -> Map.of("epoch", epoch, "result", Map.of("done", true));
				case RELEASE, CANCEL -> Map.of("epoch", epoch, "reason", "stale worker says so");
				case RELEASE_WITH_A_DELAY ->
					Map.of("epoch", epoch, "reason", "stale worker says later", "retryAfterSeconds", 3600);
				case DECOMPOSE -> Map.of("epoch", epoch, "children", List.of(Map.of("key", "a", "title", "child a"),
						Map.of("key", "b", "title", "child b", "dependsOn", List.of("a"))));
				case BLOCKING_ATTENTION_REQUEST ->
					Map.of("epoch", epoch, "question", "May I?", "blocking", true, "context", Map.of("k", 1));
				case NON_BLOCKING_ATTENTION_REQUEST ->
					Map.of("epoch", epoch, "question", "FYI", "blocking", false, "context", Map.of());
				case CHECKPOINT -> Map.of("epoch", epoch, "data", Map.of("step", 3));
				case CHECKPOINT_AND_RENEW -> Map.of("epoch", epoch, "data", Map.of("step", 4), "renewSeconds", 600);
				case FAIL -> Map.of("epoch", epoch, "error", Map.of("message", "boom"));
				case FAIL_FOR_GOOD ->
					Map.of("epoch", epoch, "error", Map.of("message", "bad input"), "retryable", false, "reason", "no");
				case HANDOFF -> Map.of("epoch", epoch, "toWorkerId", "successor", "reason", "stale worker says so");
				case WAIT -> Map.of("epoch", epoch, "event", Map.of("name", "ci.finished", "key", "pr-1"));
				case WAIT_WITH_DEADLINE -> Map.of("epoch", epoch, "event", Map.of("name", "ci.finished", "key", "pr-2"),
						"timeoutSeconds", 60, "onTimeout", "ask");
			};
		}

		public String path(UUID leaseId) {
			return "/leases/" + leaseId + "/" + this.path;
		}

		/** The last path segment, e.g. {@code renew}. */
		public String segment() {
			return this.path;
		}

	}

	protected Api.Response mutate(Mutation mutation, UUID leaseId, long epoch) {
		return this.api.post(mutation.path(leaseId), mutation.body(epoch));
	}

	/** {@code POST /leases/{id}/handoff} to {@code toWorkerId}. */
	protected Api.Response handOff(JsonNode claim, String toWorkerId) {
		return this.api.post("/leases/" + leaseId(claim) + "/handoff",
				Map.of("epoch", epoch(claim), "toWorkerId", toWorkerId));
	}

	protected Api.Response renew(JsonNode claim, Integer leaseSeconds) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("epoch", epoch(claim));
		if (leaseSeconds != null) {
			body.put("leaseSeconds", leaseSeconds);
		}
		return this.api.post("/leases/" + leaseId(claim) + "/renew", body);
	}

	protected Api.Response complete(JsonNode claim, Object result) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("epoch", epoch(claim));
		body.put("result", result);
		return this.api.post("/leases/" + leaseId(claim) + "/complete", body);
	}

	protected Api.Response release(JsonNode claim) {
		return this.api.post("/leases/" + leaseId(claim) + "/release", Map.of("epoch", epoch(claim)));
	}

	protected Api.Response cancelLease(JsonNode claim, String reason) {
		return this.api.post("/leases/" + leaseId(claim) + "/cancel", Map.of("epoch", epoch(claim), "reason", reason));
	}

	protected Api.Response decompose(JsonNode claim, List<Map<String, Object>> children) {
		return this.api.post("/leases/" + leaseId(claim) + "/decompose",
				Map.of("epoch", epoch(claim), "children", children));
	}

	protected Api.Response askForAttention(JsonNode claim, String question, boolean blocking) {
		return this.api.post("/leases/" + leaseId(claim) + "/attention-requests",
				Map.of("epoch", epoch(claim), "question", question, "blocking", blocking));
	}

	protected Api.Response resolve(UUID requestId, String resolution) {
		return this.api.post("/attention-requests/" + requestId + "/resolve",
				Map.of("resolution", resolution, "resolvedBy", "operator-ann"));
	}

	protected Api.Response operatorCancel(UUID itemId, String reason) {
		return this.api.post("/items/" + itemId + "/cancel", Map.of("reason", reason));
	}

	/**
	 * Claims, in only this queue, as this worker; fails the test when nothing is ready.
	 */
	protected JsonNode claimFrom(String queue, String workerId) {
		return claim(Map.of("workerId", workerId, "queues", List.of(queue)));
	}

	protected JsonNode claim(String workerId, int leaseSeconds) {
		return claim(Map.of("workerId", workerId, "leaseSeconds", leaseSeconds));
	}

	/** Asserts that nothing is claimable for this request. */
	protected void nothingToClaim(Map<String, Object> request) {
		Api.Response claimed = this.api.post("/claims", request);
		assertThat(claimed.status()).as(claimed.toString()).isEqualTo(204);
		assertThat(claimed.raw().body()).isEmpty();
	}

	protected void nothingToClaim() {
		nothingToClaim(Map.of("workerId", "anybody"));
	}

	protected int reap() {
		return this.reaper.reapExpired();
	}

	/** Claims as this worker, with these further claim fields, until nothing is left. */
	protected List<JsonNode> claimUntilEmpty(String workerId, Map<String, Object> options) {
		Map<String, Object> request = new LinkedHashMap<>(options);
		request.put("workerId", workerId);
		return claimUntilEmpty(request);
	}

	protected JsonNode lease(UUID leaseId) {
		Api.Response lease = this.api.get("/leases/" + leaseId);
		assertThat(lease.status()).as(lease.toString()).isEqualTo(200);
		return lease.body();
	}

	/** {@code GET /items/{id}/leases}: every lease of the item, ordered by epoch. */
	protected List<JsonNode> leasesOf(UUID itemId) {
		Api.Response leases = this.api.get("/items/" + itemId + "/leases");
		assertThat(leases.status()).as(leases.toString()).isEqualTo(200);
		List<JsonNode> list = new ArrayList<>();
		leases.body().path("leases").forEach(list::add);
		return list;
	}

	protected Map<String, Object> fingerprint() {
		return Database.fingerprint(this.jdbc);
	}

	protected static void assertProblem(Api.Response response, int status, String code) {
		assertThat(response.status()).as(response.toString()).isEqualTo(status);
		assertThat(response.code()).as(response.toString()).isEqualTo(code);
		assertThat(response.header("Content-Type")).startsWith("application/problem+json");
		assertThat(response.body().path("type").asString()).isNotBlank();
		assertThat(response.body().path("title").asString()).isNotBlank();
		assertThat(response.body().path("detail").asString()).isNotBlank();
		assertThat(response.body().path("status").asInt()).isEqualTo(status);
		ProblemBodies.assertWellFormed(response.raw().body(), status, response.toString());
	}

	protected static void assertCreated(Api.Response response) {
		assertThat(response.status()).as(response.toString()).isEqualTo(201);
	}

	protected static void assertOk(Api.Response response) {
		assertThat(response.status()).as(response.toString()).isEqualTo(200);
	}

	protected static Instant instant(JsonNode node) {
		assertThat(node.isString()).as("timestamp %s", node).isTrue();
		return Instant.parse(node.asString());
	}

	protected static UUID uuid(JsonNode node) {
		return UUID.fromString(node.asString());
	}

	protected static List<UUID> ids(JsonNode array) {
		List<UUID> ids = new ArrayList<>();
		array.forEach((entry) -> ids.add(uuid(entry.path("id"))));
		return ids;
	}

	protected static Map<String, Object> child(String key, Object... keyValues) {
		Map<String, Object> child = new LinkedHashMap<>();
		child.put("key", key);
		child.put("title", "child " + key);
		for (int i = 0; i < keyValues.length; i += 2) {
			child.put((String) keyValues[i], keyValues[i + 1]);
		}
		return child;
	}

	/** The database's clock, which is the only clock leases follow. */
	protected Instant databaseNow() {
		return this.jdbc.sql("select now()").query(java.time.OffsetDateTime.class).single().toInstant();
	}

	/**
	 * Inserts {@code n} leased items with their leases, as a burst of claims leaves them,
	 * expiring at now() {@code expiry} (an interval expression such as
	 * {@code "- interval '1 minute'"}).
	 */
	protected void leasedItems(int n, String expiry) {
		this.jdbc.sql("""
				with made as (
				    insert into work_items (id, title, queue, status, epoch)
				    select gen_random_uuid(), 'burst ' || i, 'default', 'leased', 1 from generate_series(1, :n) i
				    returning id, queue
				)
				insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
				select gen_random_uuid(), id, 'burst-worker', 1, now() - interval '2 minutes', now() %s, queue
				from made
				""".formatted(expiry)).param("n", n).update();
	}

	/** {@code n} items ready in the claim queue (queue {@code default}). */
	protected void readyItems(int n) {
		this.jdbc.sql("""
				with made as (
				    insert into work_items (id, title, queue, status, ready_since)
				    select gen_random_uuid(), 'ready ' || i, 'default', 'ready', now() from generate_series(1, :n) i
				    returning id, queue, priority, ready_since
				)
				insert into ready_items (item_id, queue, priority, ready_since)
				select id, queue, priority, ready_since from made
				""").param("n", n).update();
	}

	/**
	 * The queue analyzed while it held dead rows only, its pages kept (vacuum never
	 * truncates it), as the queue vacuum leaves it after a backlog has drained.
	 */
	protected void statisticsSayReadyItemsIsEmpty() {
		// Many pages, as a drained backlog leaves: priced by them, a scan of the whole
		// queue looks as dear as it is.
		readyItems(20_000);
		this.jdbc.sql("delete from ready_items").update();
		this.jdbc.sql("update work_items set status = 'cancelled', ready_since = null, closed_at = now()").update();
		this.jdbc.sql("vacuum analyze ready_items").update();
		assertStatisticsSayEmptyWithPages("ready_items");
	}

	/**
	 * The leases table analyzed while it held dead rows only, as autovacuum (or a quiet
	 * moment's analyze) leaves it after the leases of a burst of 2,000 have ended.
	 */
	protected void statisticsSayLeasesIsEmpty() {
		leasedItems(2_000, "- interval '1 minute'");
		this.jdbc.sql("delete from leases").update();
		this.jdbc.sql("update work_items set status = 'cancelled', closed_at = now()").update();
		this.jdbc.sql("analyze leases").update();
		assertStatisticsSayEmptyWithPages("leases");
	}

	private void assertStatisticsSayEmptyWithPages(String table) {
		assertThat(this.jdbc.sql("select reltuples = 0 and relpages > 0 from pg_class where relname = :table")
			.param("table", table)
			.query(Boolean.class)
			.single()).as("the statistics describe an empty %s of many pages", table).isTrue();
	}

	/** The elements as an SQL array literal. */
	protected static String array(List<String> elements) {
		return "'{" + String.join(",", elements) + "}'";
	}

	protected long historyRows(UUID itemId) {
		return this.jdbc.sql("select count(*) from lease_history where item_id = :id")
			.param("id", itemId)
			.query(Long.class)
			.single();
	}

	/**
	 * Makes every lease granted on an item titled {@code title} fail in the database with
	 * {@code sqlState} (a trigger on {@code leases}, dropped after the test): 40001 is a
	 * lost lock race, 57P03 a connection the pool then drops.
	 */
	protected void refuseLeasesOf(String title, String sqlState) {
		this.jdbc.sql("""
				create function refuse_lease() returns trigger language plpgsql as $$
				begin
				    if (select title from work_items where id = new.item_id) = '%s' then
				        raise exception 'no lease for %%', new.item_id using errcode = '%s';
				    end if;
				    return new;
				end $$
				""".formatted(title, sqlState)).update();
		this.jdbc
			.sql("create trigger refuse_lease before insert on leases for each row execute function refuse_lease()")
			.update();
	}

	@AfterEach
	void dropLeaseRefusal() {
		this.jdbc.sql("drop trigger if exists refuse_lease on leases").update();
		this.jdbc.sql("drop function if exists refuse_lease()").update();
	}

	/**
	 * Holds a SHARE lock on {@code table}, sends the first {@code alone} requests one by
	 * one, each running alone and getting stuck behind the lock (as a request in flight
	 * is), then the rest, then lets go: the rest queue behind the first ones and are
	 * served together. The answers come in request order.
	 */
	protected List<Api.Response> queuedBehindLock(int alone, String table, int requests,
			IntFunction<Api.Response> request) throws Exception {
		ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
		try (Connection holder = DriverManager.getConnection(TestDatabase.coordinates().jdbcUrl(),
				TestDatabase.coordinates().username(), TestDatabase.coordinates().password())) {
			holder.setAutoCommit(false);
			try (Statement statement = holder.createStatement()) {
				statement.execute("lock table " + table + " in share mode");
			}
			List<Future<Api.Response>> responses = new ArrayList<>();
			for (int i = 0; i < alone; i++) {
				int index = i;
				responses.add(threads.submit(() -> request.apply(index)));
				awaitWaitingForLocks(i + 1);
			}
			for (int i = alone; i < requests; i++) {
				int index = i;
				responses.add(threads.submit(() -> request.apply(index)));
			}
			Thread.sleep(1000);
			holder.commit();
			List<Api.Response> answers = new ArrayList<>();
			for (Future<Api.Response> response : responses) {
				answers.add(response.get(30, TimeUnit.SECONDS));
			}
			return answers;
		}
		finally {
			threads.shutdownNow();
		}
	}

	private void awaitWaitingForLocks(int requests) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		// Nothing else runs here, so a backend waiting for a lock is a request.
		while (count("select count(*) from pg_stat_activity where datname = current_database()"
				+ " and wait_event_type = 'Lock'") < requests) {
			assertThat(System.nanoTime()).as("a request waits for the table lock").isLessThan(deadline);
			Thread.sleep(10);
		}
	}

}
