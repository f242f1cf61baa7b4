package dev.workgraph.change;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.QueryPlans;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox: every change of every path written in its own transaction, numbered when it
 * is published so that one committing late comes after what readers have seen, nothing
 * uncommitted ever published, old changes trimmed.
 */
class ChangeOutboxTests extends ServiceTest {

	private static final Duration PUBLISHED_WITHIN = Duration.ofSeconds(30);

	@Autowired
	private DataSource dataSource;

	@Autowired
	private ChangeLog changes;

	@Autowired
	private ChangeOutbox outbox;

	@Autowired
	private PlatformTransactionManager transactionManager;

	@Test
	void aLifecycleIsPublishedInOrderWithEveryStep() {
		long before = this.changes.head();
		UUID item = createItem("published", "queue", "outbox");
		JsonNode claim = claim(Map.of("workerId", "w-outbox", "queues", List.of("outbox")));
		assertThat(complete(claim).status()).isEqualTo(200);
		List<Change> published = awaitChanges(before, 5);
		assertThat(published).extracting(Change::type)
			.containsExactly("item.created", "item.ready", "lease.granted", "lease.ended", "item.completed");
		assertThat(published).extracting(Change::itemId).containsOnly(item);
		assertThat(published).extracting(Change::queue).containsOnly("outbox");
		assertThat(published.get(2).leaseId()).isEqualTo(leaseId(claim));
		assertThat(published.get(2).epoch()).isEqualTo(epoch(claim));
		assertThat(published.get(3).data()).contains("\"outcome\": \"completed\"").contains("w-outbox");
		assertContiguousFrom(before, published);
	}

	@Test
	void checkpointsAndQuestionsArePublishedWithTheirOwnFields() {
		long before = this.changes.head();
		createItem("checkpointed", "queue", "outbox");
		JsonNode claim = claim(Map.of("workerId", "w-checkpoint", "queues", List.of("outbox")));
		String lease = "/leases/" + leaseId(claim);
		assertThat(this.api.post(lease + "/checkpoints", Map.of("epoch", epoch(claim), "data", Map.of("page", 3)))
			.status()).isEqualTo(201);
		assertThat(this.api
			.post(lease + "/attention-requests",
					Map.of("epoch", epoch(claim), "question", "which page next?", "blocking", false))
			.status()).isEqualTo(201);
		List<Change> published = awaitChanges(before, 5);
		assertThat(published).extracting(Change::type)
			.containsExactly("item.created", "item.ready", "lease.granted", "checkpoint.written", "attention.opened");
		Change checkpoint = published.get(3);
		assertThat(checkpoint.leaseId()).isEqualTo(leaseId(claim));
		assertThat(checkpoint.epoch()).isEqualTo(epoch(claim));
		assertThat(checkpoint.data()).contains("\"checkpointSeq\": 1").contains("\"workerId\": \"w-checkpoint\"");
		assertThat(published.get(4).data()).contains("\"kind\": null").contains("which page next?");
	}

	@Test
	void aWaitMatchedByAnEventIsPublished() {
		createItem("waiting for CI", "queue", "outbox");
		JsonNode claim = claim(Map.of("workerId", "w-wait", "queues", List.of("outbox")));
		Api.Response waiting = this.api.post("/leases/" + leaseId(claim) + "/waits",
				Map.of("epoch", epoch(claim), "event", Map.of("name", "ci.finished", "key", "outbox#1")));
		assertThat(waiting.status()).as(waiting.toString()).isEqualTo(201);
		Eventually.until("the wait published", PUBLISHED_WITHIN, Duration.ofMillis(20),
				() -> this.jdbc.sql("select count(*) from change_pending").query(Long.class).single() == 0);
		long before = this.changes.head();
		Api.Response event = this.api.post("/events", Map.of("name", "ci.finished", "key", "outbox#1"));
		assertThat(event.status()).as(event.toString()).isEqualTo(202);
		List<Change> published = awaitChanges(before, 2);
		assertThat(published).extracting(Change::type).containsExactlyInAnyOrder("wait.matched", "item.ready");
		Change matched = published.stream().filter((change) -> change.type().equals("wait.matched")).findFirst().get();
		assertThat(matched.leaseId()).isEqualTo(leaseId(claim));
		assertThat(matched.data()).contains("\"eventName\": \"ci.finished\"")
			.contains("\"eventKey\": \"outbox#1\"")
			.contains("\"eventId\": \"" + event.body().path("eventId").asString() + "\"");
	}

	@Test
	void aTransactionThatCommitsLateIsPublishedAfterWhatTheReaderHasSeen() throws SQLException {
		long before = this.changes.head();
		try (Connection slow = this.dataSource.getConnection()) {
			slow.setAutoCommit(false);
			try (Statement statement = slow.createStatement()) {
				statement.execute("insert into change_pending (type, queue) values ('item.ready', 'slow')");
			}
			// Later transactions commit while the slow one stays open; a reader reads
			// them.
			createItem("after the slow one", "queue", "fast");
			createItem("and another", "queue", "fast");
			List<Change> seen = awaitChanges(before, 4);
			assertThat(seen).extracting(Change::queue).containsOnly("fast");
			sleep(Duration.ofMillis(300));
			assertThat(this.changes.head()).as("nothing of the open transaction").isEqualTo(before + 4);
			slow.commit();
		}
		// The reader continues after the last seq it saw, and gets the slow change there.
		List<Change> next = awaitChanges(before + 4, 1);
		assertThat(next).extracting(Change::queue).containsExactly("slow");
		assertContiguousFrom(before, this.changes.after(before, 100));
	}

	@Test
	void aRolledBackChangeIsNeverPublished() throws SQLException {
		long before = this.changes.head();
		try (Connection aborted = this.dataSource.getConnection()) {
			aborted.setAutoCommit(false);
			try (Statement statement = aborted.createStatement()) {
				statement.execute("insert into change_pending (type, queue) values ('item.ready', 'never')");
			}
			createItem("committed", "queue", "kept");
			aborted.rollback();
		}
		List<Change> published = awaitChanges(before, 2);
		assertThat(published).extracting(Change::queue).containsOnly("kept");
		sleep(Duration.ofMillis(200));
		assertThat(this.changes.after(before, 100)).hasSize(2);
	}

	@Test
	void concurrentLifecyclesArePublishedGaplessAndInOrderPerItem() {
		int workers = 8;
		int itemsEach = 15;
		long before = this.changes.head();
		AtomicBoolean done = new AtomicBoolean();
		List<Change> seen = new ArrayList<>();
		// A reader that polls while everything commits: each read continues exactly
		// where the last one ended, never past a hole.
		Thread reader = Thread.ofPlatform().start(() -> {
			long last = before;
			while (!done.get() || this.changes.head() > last) {
				for (Change change : this.changes.after(last, 500)) {
					assertThat(change.seq()).as("no seq skipped").isEqualTo(last + 1);
					last = change.seq();
					seen.add(change);
				}
			}
		});
		Concurrently.run(workers, (worker) -> {
			for (int i = 0; i < itemsEach; i++) {
				String queue = "q" + worker;
				createItem("item " + i, "queue", queue);
				JsonNode claim = claim(Map.of("workerId", "w" + worker, "queues", List.of(queue)));
				assertThat(complete(claim).status()).isEqualTo(200);
			}
			return null;
		});
		int expected = workers * itemsEach * 5;
		Eventually.until("every change published", PUBLISHED_WITHIN, Duration.ofMillis(20),
				() -> this.changes.head() >= before + expected);
		done.set(true);
		join(reader);
		assertThat(seen).hasSize(expected);
		Map<UUID, List<String>> perItem = new LinkedHashMap<>();
		for (Change change : seen) {
			perItem.computeIfAbsent(change.itemId(), (id) -> new ArrayList<>()).add(change.type());
		}
		assertThat(perItem).hasSize(workers * itemsEach);
		assertThat(perItem.values()).allSatisfy((types) -> assertThat(types).containsExactly("item.created",
				"item.ready", "lease.granted", "lease.ended", "item.completed"));
	}

	/**
	 * A pass reads {@code change_pending} through its index (V62), also while the
	 * statistics still count a burst of changes: the table is never truncated, and a
	 * sequential scan would read every page a burst ever left it, on every pass.
	 */
	@Test
	void aPassReadsThePendingChangesThroughTheIndexAfterABurst() {
		JsonNode plan = QueryPlans.explainAndRollBack(this.transactionManager, this.jdbc,
				ChangeOutbox.SEQUENCE_COMMITTED, () -> {
					this.jdbc
						.sql("insert into change_pending (type) select 'test.burst' from generate_series(1, 20000)")
						.update();
					this.jdbc.sql("analyze change_pending").update();
					this.jdbc.sql(ChangeOutbox.TRY_LOCK).param("key", ChangeOutbox.SEQUENCER_LOCK).query().singleRow();
				});
		assertThat(QueryPlans.scansOf(plan, "change_pending")).isNotEmpty().doesNotContain("Seq Scan");
		assertThat(QueryPlans.rowsReturned(plan, "change_pending")).isGreaterThanOrEqualTo(20_000);
	}

	@Test
	void changesPastTheRetentionAreTrimmed() {
		long before = this.changes.head();
		createItem("old", "queue", "old");
		createItem("new", "queue", "new");
		List<Change> published = awaitChanges(before, 4);
		// Everything up to the old item's changes is past the retention, as time ages
		// the oldest changes first (earlier tests' changes included).
		long lastOld = published.stream()
			.filter((change) -> "old".equals(change.queue()))
			.mapToLong(Change::seq)
			.max()
			.orElseThrow();
		int aged = this.jdbc.sql("update changes set at = now() - interval '8 days' where seq <= :lastOld")
			.param("lastOld", lastOld)
			.update();
		// Batch after batch, as the sequencer runs them between its passes
		// (TrimBetweenPassesTests), until one comes back short.
		int trimmed = 0;
		int batch;
		do {
			batch = this.outbox.trim(Duration.ofDays(7), ChangeSequencer.TRIM_BATCH);
			trimmed += batch;
		}
		while (batch == ChangeSequencer.TRIM_BATCH);
		assertThat(trimmed).isEqualTo(aged);
		assertThat(this.changes.after(0, 100_000)).extracting(Change::queue).containsOnly("new");
		assertThat(this.changes.head()).as("the counter never moves back").isEqualTo(published.getLast().seq());
	}

	/**
	 * With nothing past the retention, a trim reads one batch of the oldest changes, not
	 * every change: {@code at} has no index, and a trim that read the whole table held up
	 * the sequencer, whose thread runs it, for hundreds of milliseconds a minute.
	 */
	@Test
	void aTrimWithNothingToRemoveReadsOneBatch() {
		String trim = ChangeOutbox.TRIM.replace(":seconds", "604800")
			.replace(":batch", Integer.toString(ChangeSequencer.TRIM_BATCH));
		JsonNode plan = QueryPlans.explainAndRollBack(this.transactionManager, this.jdbc, trim, () -> {
			this.jdbc.sql("""
					insert into changes (seq, type, at, data)
					select :head + n, 'test.young', now(), '{}' from generate_series(1, 20000) n""")
				.param("head", this.changes.head())
				.update();
			this.jdbc.sql("analyze changes").update();
		});
		assertThat(QueryPlans.rowsRead(plan, "changes")).isPositive().isLessThanOrEqualTo(ChangeSequencer.TRIM_BATCH);
	}

	private List<Change> awaitChanges(long after, int count) {
		Eventually.until(count + " changes published", PUBLISHED_WITHIN, Duration.ofMillis(20),
				() -> this.changes.head() >= after + count);
		return this.changes.after(after, count);
	}

	private static void assertContiguousFrom(long before, List<Change> published) {
		for (int i = 0; i < published.size(); i++) {
			assertThat(published.get(i).seq()).isEqualTo(before + 1 + i);
		}
	}

	private static void sleep(Duration pause) {
		try {
			Thread.sleep(pause);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void join(Thread thread) {
		try {
			thread.join(Duration.ofSeconds(30));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
