package dev.workgraph.audit;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import dev.workgraph.problem.StatementCancelled;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Database;
import dev.workgraph.testing.IntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The audit every concurrency test relies on must itself find what is wrong: stored
 * counters, claim-queue entries and statuses are corrupted behind the service's back and
 * each must be reported, by id, whether the items fall into one chunk or several.
 */
@IntegrationTest
class ConsistencyAuditTests {

	@LocalServerPort
	private int port;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private JdbcTemplate template;

	@Autowired
	private DataSource dataSource;

	private Api api;

	@BeforeEach
	void cleanDatabase() {
		Database.clean(this.jdbc);
		this.api = new Api(this.port);
	}

	@AfterEach
	void leaveNoCorruptionBehind() {
		Database.clean(this.jdbc);
	}

	@Test
	void aHealthyGraphIsConsistentInOneChunkOrMany() {
		createThreeRelatedItems();
		for (ConsistencyAudit audit : List.of(new ConsistencyAudit(this.template), audit(1))) {
			ConsistencyAudit.Report report = audit.run();
			assertThat(report.consistent()).isTrue();
			assertThat(report.itemsChecked()).isEqualTo(3);
			assertThat(report.inconsistencies()).isEmpty();
		}
	}

	@Test
	void corruptionsAreReportedByItemAcrossChunkBoundaries() {
		UUID upstream = create(Map.of("title", "upstream"));
		UUID dependent = create(Map.of("title", "dependent", "dependsOn", List.of(upstream)));
		UUID dequeued = create(Map.of("title", "dequeued"));
		UUID reprioritised = create(Map.of("title", "reprioritised"));
		for (int i = 0; i < 3; i++) {
			create(Map.of("title", "bystander " + i));
		}
		this.jdbc.sql("update work_items set unmet_dependencies = 2 where id = ?").param(dependent).update();
		this.jdbc.sql("delete from ready_items where item_id = ?").param(dequeued).update();
		this.jdbc.sql("update ready_items set priority = 7 where item_id = ?").param(reprioritised).update();

		for (int chunkSize : List.of(100_000, 2, 1)) {
			ConsistencyAudit.Report report = audit(chunkSize).run();
			assertThat(report.consistent()).as("chunk size %d", chunkSize).isFalse();
			assertThat(report.itemsChecked()).isEqualTo(7);
			assertThat(report.inconsistencies()).as("chunk size %d", chunkSize)
				.containsExactlyInAnyOrder(
						new ConsistencyAudit.Inconsistency(dependent, "unmetDependencies is 2 but recounting gives 1"),
						new ConsistencyAudit.Inconsistency(dequeued,
								"status is ready but the item is not in the claim queue"),
						new ConsistencyAudit.Inconsistency(reprioritised, "claim queue entry differs from the item"));
		}
	}

	/**
	 * The listings find each status where that state lives (parked items, completed
	 * history, leases carrying their queue): each of those sources disagreeing with the
	 * item is reported.
	 */
	@Test
	void theStatusSourcesOfTheListingsAreAudited() {
		UUID upstream = create(Map.of("title", "upstream"));
		UUID waiting = create(Map.of("title", "waiting", "dependsOn", List.of(upstream)));
		UUID strayParked = create(Map.of("title", "stray parked"));
		UUID completedBehindTheBack = create(Map.of("title", "completed behind the back"));
		UUID finished = create(Map.of("title", "finished", "queue", "finish"));
		UUID held = create(Map.of("title", "held", "queue", "hold"));
		Api.Response claimed = this.api.post("/claims", Map.of("workerId", "w", "queues", List.of("finish")));
		Api.Response completed = this.api.post(
				"/leases/" + claimed.body().path("lease").path("id").asString() + "/complete",
				Map.of("epoch", claimed.body().path("lease").path("epoch").asLong()));
		assertThat(completed.status()).as(completed.toString()).isEqualTo(200);
		assertThat(this.api.post("/claims", Map.of("workerId", "w", "queues", List.of("hold"))).status())
			.isEqualTo(201);
		assertThat(new ConsistencyAudit(this.template).run().consistent()).isTrue();

		this.jdbc.sql("delete from parked_items where item_id = ?").param(waiting).update();
		this.jdbc.sql("insert into parked_items values (?, 'default', 'cancelled')").param(strayParked).update();
		this.jdbc.sql("""
				with gone as (delete from ready_items where item_id = :id)
				update work_items set status = 'completed', ready_since = null, closed_at = now() where id = :id
				""").param("id", completedBehindTheBack).update();
		this.jdbc.sql("update work_items set status = 'cancelled', result = null where id = ?")
			.param(finished)
			.update();
		this.jdbc.sql("update leases set queue = 'elsewhere' where item_id = ?").param(held).update();

		assertThat(audit(2).run().inconsistencies()).containsExactlyInAnyOrder(
				new ConsistencyAudit.Inconsistency(waiting, "status is blocked but parked as nothing"),
				new ConsistencyAudit.Inconsistency(strayParked, "status is ready but parked as cancelled"),
				new ConsistencyAudit.Inconsistency(completedBehindTheBack,
						"status is completed but 0 leases ended completed"),
				new ConsistencyAudit.Inconsistency(finished, "status is cancelled but 1 leases ended completed"),
				new ConsistencyAudit.Inconsistency(held, "active lease is in queue elsewhere but the item is in hold"));
	}

	/** An item's queue is copied into the claim queue, its lease and parked entry. */
	@Test
	void anItemsQueueCannotChange() {
		UUID item = create(Map.of("title", "stays put", "queue", "here"));
		assertThatThrownBy(
				() -> this.jdbc.sql("update work_items set queue = 'there' where id = ?").param(item).update())
			.hasMessageContaining("work_items.queue is immutable");
	}

	@Test
	void reportsTheFirstHundredInconsistenciesInIdOrder() {
		for (int i = 0; i < 150; i++) {
			create(Map.of("title", "item " + i));
		}
		this.jdbc.sql("delete from ready_items").update();

		ConsistencyAudit.Report report = audit(7).run();

		assertThat(report.consistent()).isFalse();
		assertThat(report.itemsChecked()).isEqualTo(150);
		List<UUID> expected = this.jdbc.sql("select id from work_items order by id limit 100").query(UUID.class).list();
		assertThat(report.inconsistencies()).extracting(ConsistencyAudit.Inconsistency::itemId)
			.containsExactlyElementsOf(expected);
	}

	/**
	 * A chunk cancelled at the query timeout is checked again in halves. Here the chunk
	 * statement waits for a lock held from outside past a timeout of one second; the lock
	 * goes at 1.6 s, while the first half waits.
	 */
	@Test
	void aChunkCancelledAtTheQueryTimeoutIsCheckedAgainInHalves() throws Exception {
		createThreeRelatedItems();
		try (Connection outside = lockLeaseHistory()) {
			CompletableFuture<Void> released = CompletableFuture.runAsync(() -> rollback(outside),
					CompletableFuture.delayedExecutor(1600, TimeUnit.MILLISECONDS));
			long started = System.nanoTime();

			ConsistencyAudit.Report report = new ConsistencyAudit(withQueryTimeoutOfOneSecond(), 4, 1).run();

			assertThat(report.consistent()).isTrue();
			assertThat(report.itemsChecked()).isEqualTo(3);
			// It waited for the lock past the timeout: the first chunk was cancelled.
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofMillis(1500));
			released.get(10, TimeUnit.SECONDS);
		}
	}

	/** Chunks of 4, 2 and 1 items each cancelled at one second: the audit gives up. */
	@Test
	void anAuditWhoseSmallestChunkOutlastsTheQueryTimeoutFails() throws Exception {
		createThreeRelatedItems();
		try (Connection outside = lockLeaseHistory()) {
			long started = System.nanoTime();

			assertThatThrownBy(() -> new ConsistencyAudit(withQueryTimeoutOfOneSecond(), 4, 1).run())
				.matches(StatementCancelled::isCauseOf, "a cancelled statement");

			assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofSeconds(3),
					Duration.ofSeconds(15));
			rollback(outside);
		}
	}

	/**
	 * A statement an administrator cancels ends the audit at once: checking the chunk
	 * again would wait out the query timeout of 20 s on the lock that is still held.
	 */
	@Test
	void aChunkCancelledByAnAdministratorEndsTheAudit() throws Exception {
		createThreeRelatedItems();
		JdbcTemplate slow = new JdbcTemplate(this.dataSource);
		slow.setQueryTimeout(20);
		try (Connection outside = lockLeaseHistory()) {
			CompletableFuture<Boolean> cancelled = CompletableFuture.supplyAsync(this::cancelTheWaitingChunk);
			long started = System.nanoTime();

			assertThatThrownBy(() -> new ConsistencyAudit(slow, 4, 1).run()).matches(StatementCancelled::isCauseOf,
					"a cancelled statement");

			assertThat(cancelled.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
			rollback(outside);
		}
	}

	private boolean cancelTheWaitingChunk() {
		for (int attempt = 0; attempt < 500; attempt++) {
			List<Boolean> cancelled = this.jdbc.sql("""
					select pg_cancel_backend(pid) from pg_stat_activity
					where datname = current_database() and wait_event_type = 'Lock' and query like '%with facts as%'
					""").query(Boolean.class).list();
			if (!cancelled.isEmpty()) {
				return cancelled.getFirst();
			}
			LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
		}
		return false;
	}

	private void createThreeRelatedItems() {
		UUID first = create(Map.of("title", "first"));
		create(Map.of("title", "second", "dependsOn", List.of(first)));
		create(Map.of("title", "child", "parentId", first));
	}

	/**
	 * Only the chunk statement reads lease_history: the chunks' bounds are still found.
	 */
	private Connection lockLeaseHistory() throws SQLException {
		Connection outside = this.dataSource.getConnection();
		outside.setAutoCommit(false);
		try (Statement lock = outside.createStatement()) {
			lock.execute("lock table lease_history in access exclusive mode");
		}
		return outside;
	}

	private static void rollback(Connection connection) {
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private JdbcTemplate withQueryTimeoutOfOneSecond() {
		JdbcTemplate template = new JdbcTemplate(this.dataSource);
		template.setQueryTimeout(1);
		return template;
	}

	private ConsistencyAudit audit(int chunkSize) {
		return new ConsistencyAudit(this.template, chunkSize, chunkSize);
	}

	private UUID create(Map<String, Object> fields) {
		Api.Response created = this.api.post("/items", fields);
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		return UUID.fromString(created.body().path("id").asString());
	}

}
