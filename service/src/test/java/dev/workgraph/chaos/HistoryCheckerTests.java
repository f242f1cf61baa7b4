package dev.workgraph.chaos;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.chaos.Exchange.Facts;
import dev.workgraph.chaos.History.Violation;
import dev.workgraph.chaos.ServerHistory.AttentionRow;
import dev.workgraph.chaos.ServerHistory.CheckpointRow;
import dev.workgraph.chaos.ServerHistory.EventRow;
import dev.workgraph.chaos.ServerHistory.ItemRow;
import dev.workgraph.chaos.ServerHistory.LeaseRow;
import dev.workgraph.chaos.ServerHistory.Operations;
import dev.workgraph.chaos.ServerHistory.WaitRow;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker has teeth: a clean history passes, and each kind of broken history is
 * reported under the invariant it breaks. Histories are built by hand, so every case is
 * exact.
 */
class HistoryCheckerTests {

	private static final UUID ITEM = UUID.fromString("00000000-0000-7000-8000-000000000001");

	private static final UUID FIRST_LEASE = UUID.fromString("00000000-0000-7000-8000-0000000000a1");

	private static final UUID SECOND_LEASE = UUID.fromString("00000000-0000-7000-8000-0000000000a2");

	private static final UUID OTHER_ITEM = UUID.fromString("00000000-0000-7000-8000-000000000002");

	private static final UUID OTHER_LEASE = UUID.fromString("00000000-0000-7000-8000-0000000000b1");

	private final List<Exchange> exchanges = new ArrayList<>();

	private final List<LeaseRow> leases = new ArrayList<>();

	private final Map<UUID, ItemRow> items = new HashMap<>();

	private final List<AttentionRow> attention = new ArrayList<>();

	private final List<CheckpointRow> checkpoints = new ArrayList<>();

	private final List<WaitRow> waits = new ArrayList<>();

	private final List<EventRow> events = new ArrayList<>();

	private final World world = new World();

	/**
	 * Claimed by w1 at t=100, expired at t=200 (µs on PostgreSQL's clock, ns on the
	 * client's): one attempt; claimed by w2 at t=300 and completed at t=400.
	 */
	private void cleanHistory() {
		this.world.created(ITEM, "i1");
		this.items.put(ITEM, new ItemRow(ITEM, "i1", "completed", 2, null, SECOND_LEASE.toString(), 1, null));
		this.leases.add(new LeaseRow(FIRST_LEASE, ITEM, "w1", 1, 100, null, 200, 200L, "expired", false, "alpha"));
		this.leases.add(new LeaseRow(SECOND_LEASE, ITEM, "w2", 2, 300, null, 900, 400L, "completed", false, "alpha"));
		this.exchanges.add(exchange("w1", Op.CLAIM, FIRST_LEASE, 1, 90, 110, 201, null, null));
		this.exchanges.add(exchange("w2", Op.CLAIM, SECOND_LEASE, 2, 290, 310, 201, null, null));
		this.exchanges.add(exchange("w1", Op.COMPLETE, FIRST_LEASE, 1, 350, 360, 409, "lease_expired", null));
		this.exchanges.add(exchange("w2", Op.COMPLETE, SECOND_LEASE, 2, 390, 410, 200, null, "completed"));
	}

	@Test
	void cleanHistoryPasses() {
		cleanHistory();
		assertThat(check()).isEmpty();
	}

	@Test
	void writeAcceptedAfterTheNextEpochWasGrantedIsAStaleWrite() {
		cleanHistory();
		// w1's renewal was sent after w2's claim answer arrived, yet accepted.
		this.exchanges.add(exchange("w1", Op.RENEW, FIRST_LEASE, 1, 320, 330, 200, null, null));
		assertThat(check()).extracting(Violation::invariant).contains("1-no-stale-write");
	}

	@Test
	void writeAcceptedAfterTheLeaseWasKnownDeadIsAStaleWrite() {
		cleanHistory();
		this.exchanges.add(exchange("w2", Op.RENEW, SECOND_LEASE, 2, 420, 430, 200, null, null));
		assertThat(check()).extracting(Violation::invariant).contains("1-no-stale-write");
	}

	@Test
	void moreLeasesAtOnceThanACappedQueuesCapAreReported() {
		cleanHistory();
		int cap = World.CAPS.get("beta");
		for (int i = 0; i <= cap; i++) {
			// Distinct items, each with one lease; together from 500 to 600 µs.
			this.leases.add(new LeaseRow(UUID.randomUUID(), UUID.randomUUID(), "w" + i, 1, 500 + i, null, 900, 600L,
					"completed", false, "beta"));
		}
		assertThat(check()).extracting(Violation::invariant).contains("7-capped-queue-within-cap");
	}

	@Test
	void aCappedQueueAtItsCapWithASlotHandedOnPasses() {
		cleanHistory();
		int cap = World.CAPS.get("beta");
		for (int i = 0; i < cap; i++) {
			this.leases.add(new LeaseRow(UUID.randomUUID(), UUID.randomUUID(), "w" + i, 1, 500, null, 900, 600L,
					"completed", false, "beta"));
		}
		// Granted at the instant the others ended: a slot freed and taken.
		this.leases.add(new LeaseRow(UUID.randomUUID(), UUID.randomUUID(), "late", 1, 600, null, 900, null, null, true,
				"beta"));
		assertThat(check()).extracting(Violation::invariant).doesNotContain("7-capped-queue-within-cap");
	}

	@Test
	void overlappingLeasesAreReported() {
		cleanHistory();
		this.leases.set(1,
				new LeaseRow(SECOND_LEASE, ITEM, "w2", 2, 150, null, 900, 400L, "completed", false, "alpha"));
		assertThat(check()).extracting(Violation::invariant).contains("2-epochs-and-no-overlap");
	}

	@Test
	void theSameEpochGrantedTwiceIsReported() {
		cleanHistory();
		this.exchanges.add(exchange("w3", Op.CLAIM, SECOND_LEASE, 2, 295, 305, 201, null, null));
		assertThat(check()).extracting(Violation::invariant).contains("2-epochs-and-no-overlap");
	}

	@Test
	void aGapInEpochsIsReported() {
		cleanHistory();
		this.leases.set(1,
				new LeaseRow(SECOND_LEASE, ITEM, "w2", 3, 300, null, 900, 400L, "completed", false, "alpha"));
		assertThat(check()).extracting(Violation::invariant).contains("2-epochs-and-no-overlap");
	}

	@Test
	void twoAcceptedEndingsOfOneLeaseAreReported() {
		cleanHistory();
		this.exchanges.add(exchange("w2", Op.RELEASE, SECOND_LEASE, 2, 391, 405, 200, null, "released"));
		assertThat(check()).extracting(Violation::invariant).contains("3-one-outcome");
	}

	@Test
	void aRejectionCodeThatContradictsTheHistoryIsReported() {
		cleanHistory();
		this.exchanges.add(exchange("w1", Op.RENEW, FIRST_LEASE, 1, 500, 510, 409, "lease_ended", null));
		assertThat(check()).extracting(Violation::invariant).contains("3-one-outcome");
	}

	@Test
	void aLeaseStillActiveAfterTheDrainIsReported() {
		cleanHistory();
		this.leases.set(1, new LeaseRow(SECOND_LEASE, ITEM, "w2", 2, 300, null, 900, null, null, true, "alpha"));
		assertThat(check()).extracting(Violation::invariant).contains("3-one-outcome");
	}

	@Test
	void anEndingOtherThanExpiryAfterExpiresAtIsAStaleWrite() {
		cleanHistory();
		this.leases.set(1,
				new LeaseRow(SECOND_LEASE, ITEM, "w2", 2, 300, null, 400, 400L, "completed", false, "alpha"));
		assertThat(check()).extracting(Violation::invariant).contains("1-no-stale-write");
	}

	@Test
	void aQuestionRaisedAfterTheNextGrantIsAStaleWrite() {
		cleanHistory();
		this.attention.add(new AttentionRow(UUID.randomUUID(), ITEM, FIRST_LEASE, 1, "worker", false, "open", 350));
		assertThat(check()).extracting(Violation::invariant).contains("1-no-stale-write");
	}

	@Test
	void aConfirmedItemMissingFromTheDatabaseIsLost() {
		cleanHistory();
		this.world.created(UUID.randomUUID(), "i2");
		assertThat(check()).extracting(Violation::invariant).contains("4-drained-nothing-lost");
	}

	@Test
	void anItemNobodyCreatedIsReportedUnlessItsRequestWentUnanswered() {
		cleanHistory();
		UUID stray = UUID.randomUUID();
		this.items.put(stray, new ItemRow(stray, "i7", "cancelled", 0, null, null));
		assertThat(check()).extracting(Violation::invariant).contains("4-drained-nothing-lost");
		this.world.outcomeUnknown("i7");
		assertThat(check()).isEmpty();
	}

	@Test
	void anOpenItemAfterTheDrainIsReported() {
		cleanHistory();
		UUID open = UUID.randomUUID();
		this.world.created(open, "i3");
		this.items.put(open, new ItemRow(open, "i3", "blocked", 0, null, null));
		assertThat(check()).extracting(Violation::invariant).contains("4-drained-nothing-lost");
	}

	@Test
	void anItemCompletedTwiceIsReported() {
		cleanHistory();
		this.leases.set(0, new LeaseRow(FIRST_LEASE, ITEM, "w1", 1, 100, null, 250, 200L, "completed", false, "alpha"));
		assertThat(check()).extracting(Violation::invariant).contains("4-drained-nothing-lost");
	}

	@Test
	void anAcknowledgedAnswerMissingOrAcknowledgedTwiceIsLost() {
		cleanHistory();
		UUID kept = UUID.randomUUID();
		UUID reopened = UUID.randomUUID();
		UUID answeredAgain = UUID.randomUUID();
		this.attention.add(new AttentionRow(kept, ITEM, null, 0, "system", true, "resolved", 320));
		this.attention.add(new AttentionRow(reopened, ITEM, null, 0, "system", true, "open", 320));
		this.attention.add(new AttentionRow(answeredAgain, ITEM, null, 0, "system", true, "resolved", 320));
		this.exchanges.add(resolve(kept, 200));
		this.exchanges.add(resolve(kept, 409));
		this.exchanges.add(resolve(reopened, 200));
		this.exchanges.add(resolve(answeredAgain, 200));
		this.exchanges.add(resolve(answeredAgain, 200));
		assertThat(check()).filteredOn((violation) -> violation.detail().startsWith("question "))
			.extracting(Violation::detail)
			.hasSize(2)
			.anySatisfy((detail) -> assertThat(detail).contains(reopened.toString()).contains("but is open"))
			.anySatisfy((detail) -> assertThat(detail).contains(answeredAgain.toString()).contains("2 times"));
	}

	/**
	 * w1 claims both items in one batch at t=100, then completes both in one batch at
	 * t=150 with a wrong epoch (stale on purpose) for the first: that entry alone is
	 * refused, so w1 completes that lease on its own at t=170.
	 */
	private void cleanBatchHistory() {
		this.world.created(ITEM, "i1");
		this.world.created(OTHER_ITEM, "i2");
		this.items.put(ITEM, new ItemRow(ITEM, "i1", "completed", 1, null, FIRST_LEASE.toString()));
		this.items.put(OTHER_ITEM, new ItemRow(OTHER_ITEM, "i2", "completed", 1, null, OTHER_LEASE.toString()));
		this.leases.add(new LeaseRow(FIRST_LEASE, ITEM, "w1", 1, 100, null, 900, 175L, "completed", false, "alpha"));
		this.leases
			.add(new LeaseRow(OTHER_LEASE, OTHER_ITEM, "w1", 1, 100, null, 900, 155L, "completed", false, "alpha"));
		this.exchanges.add(exchange("w1", Op.CLAIM_BATCH, null, 0, 90, 110, 201, null, null));
		this.exchanges.add(entry(Op.CLAIM_BATCH_ENTRY, FIRST_LEASE, ITEM, 1, false, 90, 110, 201, null, null));
		this.exchanges.add(entry(Op.CLAIM_BATCH_ENTRY, OTHER_LEASE, OTHER_ITEM, 1, false, 90, 110, 201, null, null));
		this.exchanges.add(exchange("w1", Op.COMPLETE_BATCH, null, 0, 150, 160, 200, null, null));
		this.exchanges
			.add(entry(Op.COMPLETE_BATCH_ENTRY, FIRST_LEASE, ITEM, 2, true, 150, 160, 409, "epoch_mismatch", null));
		this.exchanges
			.add(entry(Op.COMPLETE_BATCH_ENTRY, OTHER_LEASE, OTHER_ITEM, 1, false, 150, 160, 200, null, "completed"));
		this.exchanges.add(exchange("w1", Op.COMPLETE, FIRST_LEASE, 1, 170, 180, 200, null, "completed"));
	}

	@Test
	void cleanBatchHistoryPasses() {
		cleanBatchHistory();
		assertThat(check()).isEmpty();
	}

	@Test
	void aStaleBatchEntryReportedAcceptedIsAStaleWrite() {
		cleanBatchHistory();
		this.exchanges.set(4,
				entry(Op.COMPLETE_BATCH_ENTRY, FIRST_LEASE, ITEM, 2, true, 150, 160, 200, null, "completed"));
		assertThat(check()).extracting(Violation::invariant)
			.contains("1-no-stale-write", "3-one-outcome", "4-drained-nothing-lost");
	}

	@Test
	void aRefusedBatchEntryThatChangedTheItemIsAStaleWrite() {
		cleanBatchHistory();
		// The database shows the first lease completed, yet its only completion was the
		// refused entry.
		this.exchanges.removeLast();
		assertThat(check()).extracting(Violation::detail)
			.singleElement()
			.satisfies((detail) -> assertThat(detail).contains("no completion under it was accepted")
				.contains(FIRST_LEASE.toString()));
	}

	@Test
	void aCompletedLeaseIsExplainedByABatchEntryWhoseAnswerWasLost() {
		cleanBatchHistory();
		this.exchanges.set(4,
				entry(Op.COMPLETE_BATCH_ENTRY, FIRST_LEASE, ITEM, 1, false, 150, 160, Exchange.NO_ANSWER, null, null));
		this.exchanges.removeLast();
		assertThat(check()).isEmpty();
	}

	@Test
	void oneItemCompletedByTwoBatchEntriesIsReported() {
		cleanBatchHistory();
		this.exchanges.add(exchange("w1", Op.COMPLETE_BATCH, null, 0, 190, 200, 200, null, null));
		this.exchanges
			.add(entry(Op.COMPLETE_BATCH_ENTRY, FIRST_LEASE, ITEM, 1, false, 190, 200, 200, null, "completed"));
		assertThat(check()).extracting(Violation::invariant).contains("3-one-outcome", "4-drained-nothing-lost");
	}

	@Test
	void anEpochGrantedInABatchAndAgainIsReported() {
		cleanBatchHistory();
		this.exchanges.add(entry(Op.CLAIM, SECOND_LEASE, OTHER_ITEM, 1, false, 95, 105, 201, null, null));
		assertThat(check()).extracting(Violation::invariant).contains("2-epochs-and-no-overlap");
	}

	@Test
	void leasesNobodyHeardOfAreExplainedByALostBatchClaimUpToItsLimit() {
		cleanBatchHistory();
		UUID third = UUID.randomUUID();
		UUID fourth = UUID.randomUUID();
		this.leases
			.add(new LeaseRow(UUID.randomUUID(), third, "w1", 1, 300, null, 500, 500L, "expired", false, "alpha"));
		this.leases
			.add(new LeaseRow(UUID.randomUUID(), fourth, "w1", 1, 300, null, 500, 500L, "expired", false, "alpha"));
		this.exchanges.add(exchange("w1", Op.CLAIM_BATCH, null, 0, 290, 310, Exchange.NO_ANSWER, null, null));
		this.exchanges.add(entry(Op.CLAIM_BATCH_ENTRY, null, null, 0, false, 290, 310, Exchange.NO_ANSWER, null, null));
		assertThat(check()).extracting(Violation::invariant).containsExactly("3-one-outcome");
		// A batch claim of two: both may have been granted.
		this.exchanges.add(entry(Op.CLAIM_BATCH_ENTRY, null, null, 0, false, 290, 310, Exchange.NO_ANSWER, null, null));
		assertThat(check()).isEmpty();
	}

	@Test
	void eachBatchEntryIsJudgedOnItsOwnWhenRecorded() {
		History history = new History();
		history.recordEntry(
				entry(Op.COMPLETE_BATCH_ENTRY, FIRST_LEASE, ITEM, 2, true, 150, 160, 200, null, "completed"), null);
		history.recordEntry(entry(Op.COMPLETE_BATCH_ENTRY, OTHER_LEASE, OTHER_ITEM, 1, false, 150, 160, 500,
				"internal_error", null), "{\"status\":500,\"code\":\"internal_error\",\"detail\":\"PSQLException\"}");
		history.recordEntry(
				entry(Op.COMPLETE_BATCH_ENTRY, SECOND_LEASE, ITEM, 1, false, 150, 160, 409, "lease_expired", null),
				"{\"status\":409,\"code\":\"lease_expired\"}");
		assertThat(history.violations()).extracting(Violation::invariant)
			.containsExactlyInAnyOrder("stale-write-accepted", "no-internals", "no-5xx");
	}

	/** The clean history, with w1 saving checkpoint 1 at t=150, acknowledged at 130. */
	private void historyWithACheckpoint() {
		cleanHistory();
		this.checkpoints.add(new CheckpointRow(ITEM, 1, FIRST_LEASE, 1, "w1", 150));
		this.exchanges
			.add(exchange("w1", Op.CHECKPOINT, FIRST_LEASE, 1, 120, 130, 201, null, null).with(Facts.checkpoint(1L)));
		this.exchanges.set(1, this.exchanges.get(1).with(Facts.checkpoint(1L)));
	}

	@Test
	void aCheckpointUnderTheLiveEpochShownToTheNextHolderPasses() {
		historyWithACheckpoint();
		assertThat(check()).isEmpty();
	}

	@Test
	void aCheckpointWrittenAfterTheNextEpochWasGrantedIsReported() {
		historyWithACheckpoint();
		this.checkpoints.add(new CheckpointRow(ITEM, 2, FIRST_LEASE, 1, "w1", 310));
		assertThat(check()).extracting(Violation::invariant).containsExactly("9-checkpoint-under-live-epoch");
	}

	@Test
	void aCheckpointUnderAnotherEpochOrWithAGapInItsSeqIsReported() {
		historyWithACheckpoint();
		this.checkpoints.set(0, new CheckpointRow(ITEM, 2, FIRST_LEASE, 2, "w1", 150));
		assertThat(check()).extracting(Violation::detail)
			.anySatisfy((detail) -> assertThat(detail).contains("outside its lease's life"))
			.anySatisfy((detail) -> assertThat(detail).contains("has checkpoints [2]"))
			.anySatisfy((detail) -> assertThat(detail).contains("not in the database as acknowledged"));
	}

	@Test
	void aGrantThatShowsAnOlderCheckpointThanOneAcknowledgedIsReported() {
		historyWithACheckpoint();
		this.exchanges.set(1, this.exchanges.get(1).with(Facts.checkpoint(0L)));
		assertThat(check()).extracting(Violation::invariant).containsExactly("10-next-holder-saw-checkpoint");
	}

	@Test
	void aGrantSentBeforeTheCheckpointWasAcknowledgedMayShowLess() {
		historyWithACheckpoint();
		this.exchanges.set(1,
				exchange("w2", Op.CLAIM, SECOND_LEASE, 2, 125, 310, 201, null, null).with(Facts.checkpoint(0L)));
		assertThat(check()).isEmpty();
	}

	@Test
	void aLeaseGrantedBeforeTheNotBeforeItsCreateAnswered() {
		cleanHistory();
		this.exchanges
			.add(exchange("planner", Op.CREATE, null, 0, 50, 60, 201, null, null).with(Facts.notBefore(100L)));
		assertThat(check()).isEmpty();
		this.exchanges.set(this.exchanges.size() - 1,
				exchange("planner", Op.CREATE, null, 0, 50, 60, 201, null, null).with(Facts.notBefore(101L)));
		assertThat(check()).extracting(Violation::invariant).containsExactly("11-not-before-respected");
	}

	@Test
	void aLeaseGrantedBeforeAFailuresBackOffEndedIsReported() {
		cleanHistory();
		this.leases.set(0, new LeaseRow(FIRST_LEASE, ITEM, "w1", 1, 100, null, 200, 150L, "failed", false, "alpha"));
		this.exchanges.set(2,
				exchange("w1", Op.FAIL, FIRST_LEASE, 1, 140, 160, 200, null, "failed").with(Facts.notBefore(300L)));
		assertThat(check()).isEmpty();
		this.exchanges.set(2,
				exchange("w1", Op.FAIL, FIRST_LEASE, 1, 140, 160, 200, null, "failed").with(Facts.notBefore(350L)));
		assertThat(check()).extracting(Violation::invariant).containsExactly("11-not-before-respected");
	}

	@Test
	void aLeaseAfterTheLastAttemptNeedsAHumansAnswer() {
		cleanHistory();
		this.items.put(ITEM, new ItemRow(ITEM, "i1", "completed", 2, null, SECOND_LEASE.toString(), 1, 1));
		assertThat(check()).extracting(Violation::invariant).containsExactly("12-attempts-within-max");
		// The system held the item at the expiry, and an operator answered before w2's
		// claim: its attempts start again from 0.
		this.attention.add(new AttentionRow(UUID.randomUUID(), ITEM, FIRST_LEASE, 1, "system", true, "resolved", 200,
				"retries_exhausted", 250L, "operator", null));
		assertThat(check()).extracting(Violation::detail)
			.singleElement()
			.satisfies((detail) -> assertThat(detail).contains("stores 1 attempts but its history counts 0"));
		this.items.put(ITEM, new ItemRow(ITEM, "i1", "completed", 2, null, SECOND_LEASE.toString(), 0, 1));
		assertThat(check()).isEmpty();
	}

	@Test
	void anAnswerBeforeTheLastAttemptDoesNotCount() {
		cleanHistory();
		this.items.put(ITEM, new ItemRow(ITEM, "i1", "completed", 2, null, SECOND_LEASE.toString(), 1, 1));
		this.attention.add(new AttentionRow(UUID.randomUUID(), ITEM, null, 0, "system", true, "resolved", 50,
				"crash_loop", 90L, "operator", null));
		assertThat(check()).extracting(Violation::invariant).containsExactly("12-attempts-within-max");
	}

	private static final UUID WAIT = UUID.fromString("00000000-0000-7000-8000-0000000000c1");

	private static final UUID EVENT = UUID.fromString("00000000-0000-7000-8000-0000000000d1");

	/**
	 * w1 parks the item on key e1 at t=150 (lease ended waiting); the event e1#1 arrives
	 * at 170 and matches the wait at 180; w2 claims the item at 300 and completes it.
	 */
	private void historyWithAWait() {
		this.world.created(ITEM, "i1");
		this.items.put(ITEM, new ItemRow(ITEM, "i1", "completed", 2, null, SECOND_LEASE.toString(), 0, null));
		this.leases.add(new LeaseRow(FIRST_LEASE, ITEM, "w1", 1, 100, null, 200, 150L, "waiting", false, "alpha"));
		this.leases.add(new LeaseRow(SECOND_LEASE, ITEM, "w2", 2, 300, null, 900, 400L, "completed", false, "alpha"));
		this.waits.add(new WaitRow(WAIT, ITEM, FIRST_LEASE, 1, "w1", World.EVENT_NAME, "e1", "matched", "ready", null,
				EVENT, 150, 180L));
		this.events.add(new EventRow(EVENT, "e1#1", World.EVENT_NAME, "e1", 170, 1));
		this.exchanges.add(exchange("w1", Op.CLAIM, FIRST_LEASE, 1, 90, 110, 201, null, null));
		this.exchanges.add(exchange("w1", Op.WAIT, "/leases/a1/waits", "e1", FIRST_LEASE, 1L, 140, 160, 201, "waiting",
				Facts.waited(WAIT, "open", null)));
		this.exchanges.add(exchange("signaller", Op.EVENT, "/events", "e1#1", null, null, 165, 185, 202, null,
				Facts.event(EVENT, 1)));
		this.exchanges.add(exchange("w2", Op.CLAIM, SECOND_LEASE, 2, 290, 310, 201, null, null));
		this.exchanges.add(exchange("w2", Op.COMPLETE, SECOND_LEASE, 2, 390, 410, 200, null, "completed"));
	}

	@Test
	void aWaitMatchedByItsEventPasses() {
		historyWithAWait();
		assertThat(check()).isEmpty();
	}

	@Test
	void aWaitMatchedAndTimedOutIsReported() {
		historyWithAWait();
		this.attention.add(new AttentionRow(UUID.randomUUID(), ITEM, FIRST_LEASE, 1, "system", true, "resolved", 190,
				"wait_timed_out", 250L, "operator", WAIT));
		assertThat(check()).extracting(Violation::detail)
			.singleElement()
			.satisfies((detail) -> assertThat(detail).contains("matched and also timed out"));
	}

	@Test
	void aWaitTimedOutBeforeItsDeadlineIsReported() {
		historyWithAWait();
		this.waits.set(0, new WaitRow(WAIT, ITEM, FIRST_LEASE, 1, "w1", World.EVENT_NAME, "e9", "timed_out", "ready",
				1_000L, null, 150, 180L));
		assertThat(check()).extracting(Violation::detail)
			.anySatisfy((detail) -> assertThat(detail).contains("timed out before its deadline"));
	}

	@Test
	void aWaitWithoutADeadlineLeftOpenThoughItsEventCameIsALostWakeUp() {
		historyWithAWait();
		this.waits.set(0, new WaitRow(WAIT, ITEM, FIRST_LEASE, 1, "w1", World.EVENT_NAME, "e1", "open", "ready", null,
				null, 150, null));
		this.events.set(0, new EventRow(EVENT, "e1#1", World.EVENT_NAME, "e1", 170, 0));
		this.exchanges.set(2, exchange("signaller", Op.EVENT, "/events", "e1#1", null, null, 165, 185, 202, null,
				Facts.event(EVENT, 0)));
		assertThat(check()).extracting(Violation::detail)
			.anySatisfy((detail) -> assertThat(detail).contains("a lost wake-up"))
			.allSatisfy((detail) -> assertThat(detail).containsAnyOf("lost wake-up", "after the drain"));
	}

	@Test
	void aWaitRegisteredAfterItsEventWasAcknowledgedMustBeMatchedAtOnce() {
		historyWithAWait();
		// The event was acknowledged (at 130) before the wait was sent (at 140).
		this.exchanges.set(2, exchange("signaller", Op.EVENT, "/events", "e1#1", null, null, 120, 130, 202, null,
				Facts.event(EVENT, 1)));
		assertThat(check()).extracting(Violation::detail)
			.singleElement()
			.satisfies((detail) -> assertThat(detail).contains("was not matched at once"));
		// Matched at once, in the transaction that registered it: the event counts no
		// wait.
		this.waits.set(0, new WaitRow(WAIT, ITEM, FIRST_LEASE, 1, "w1", World.EVENT_NAME, "e1", "matched", "ready",
				null, EVENT, 150, 150L));
		this.events.set(0, new EventRow(EVENT, "e1#1", World.EVENT_NAME, "e1", 110, 0));
		this.exchanges.set(1, exchange("w1", Op.WAIT, "/leases/a1/waits", "e1", FIRST_LEASE, 1L, 140, 160, 201,
				"waiting", Facts.waited(WAIT, "matched", EVENT)));
		this.exchanges.set(2, exchange("signaller", Op.EVENT, "/events", "e1#1", null, null, 100, 130, 202, null,
				Facts.event(EVENT, 0)));
		assertThat(check()).isEmpty();
	}

	@Test
	void anAcknowledgedEventThatIsNotStoredIsLost() {
		historyWithAWait();
		this.events.clear();
		assertThat(check()).extracting(Violation::invariant).contains("15-events-exactly-once", "13-wait-ended-once");
	}

	@Test
	void anEventRecordedTwiceOrCountingAWaitTwiceIsReported() {
		historyWithAWait();
		this.exchanges.add(exchange("signaller", Op.EVENT, "/events", "e1#1", null, null, 166, 186, 202, null,
				Facts.event(EVENT, 1)));
		assertThat(check()).extracting(Violation::detail)
			.singleElement()
			.satisfies((detail) -> assertThat(detail).contains("recorded as new twice"));
		this.exchanges.removeLast();
		this.exchanges.add(exchange("signaller", Op.EVENT, "/events", "e1#1", null, null, 200, 210, 200, null,
				Facts.event(EVENT, 1)));
		assertThat(check()).isEmpty();
		this.events.set(0, new EventRow(EVENT, "e1#1", World.EVENT_NAME, "e1", 170, 2));
		assertThat(check()).extracting(Violation::invariant).containsOnly("15-events-exactly-once").hasSize(3);
	}

	@Test
	void anEventNobodySentIsReported() {
		historyWithAWait();
		this.events.add(new EventRow(UUID.randomUUID(), "e7#9", World.EVENT_NAME, "e7", 170, 0));
		assertThat(check()).extracting(Violation::detail)
			.singleElement()
			.satisfies((detail) -> assertThat(detail).contains("nobody sent"));
	}

	/**
	 * w1 hands its lease to w2 at t=150 (epoch 2 granted at 155, as epoch 1 ended in the
	 * same transaction); w2 completes.
	 */
	private void historyWithAHandoff() {
		this.world.created(ITEM, "i1");
		this.items.put(ITEM, new ItemRow(ITEM, "i1", "completed", 2, null, SECOND_LEASE.toString(), 0, null));
		this.leases.add(new LeaseRow(FIRST_LEASE, ITEM, "w1", 1, 100, null, 200, 150L, "handed_off", false, "alpha"));
		this.leases.add(new LeaseRow(SECOND_LEASE, ITEM, "w2", 2, 155, null, 900, 400L, "completed", false, "alpha"));
		this.exchanges.add(exchange("w1", Op.CLAIM, FIRST_LEASE, 1, 90, 110, 201, null, null));
		this.exchanges.add(exchange("w1", Op.HANDOFF, "/leases/a1/handoff", null, FIRST_LEASE, 1L, 140, 160, 201,
				"handed_off", Facts.NONE));
		this.exchanges.add(exchange("w2", Op.HANDOFF_GRANT, "/leases/a1/handoff[successor]", null, SECOND_LEASE, 2L,
				140, 160, 201, null, Facts.checkpoint(0L)));
		this.exchanges.add(exchange("w2", Op.COMPLETE, SECOND_LEASE, 2, 390, 410, 200, null, "completed"));
	}

	@Test
	void aHandoffWhoseSuccessorCompletesPasses() {
		historyWithAHandoff();
		assertThat(check()).isEmpty();
	}

	@Test
	void aSuccessorsLeaseHeldByAnotherWorkerThanNamedIsReported() {
		historyWithAHandoff();
		this.leases.set(1,
				new LeaseRow(SECOND_LEASE, ITEM, "w3", 2, 155, null, 900, 400L, "completed", false, "alpha"));
		assertThat(check()).extracting(Violation::detail)
			.anySatisfy((detail) -> assertThat(detail).contains("held by a worker no handoff named"))
			.anySatisfy((detail) -> assertThat(detail).contains("not the next epoch as named"));
	}

	@Test
	void aHandoffWhoseAnswerWasLostIsJudgedFromTheDatabase() {
		historyWithAHandoff();
		this.exchanges.set(1, exchange("w1", Op.HANDOFF, "/leases/a1/handoff", null, FIRST_LEASE, 1L, 140, 160,
				Exchange.NO_ANSWER, null, Facts.NONE));
		this.exchanges.set(2, exchange("w2", Op.HANDOFF_GRANT, "/leases/a1/handoff[successor]", null, null, null, 140,
				160, Exchange.NO_ANSWER, null, Facts.NONE));
		assertThat(check()).isEmpty();
		this.exchanges.set(2, exchange("w4", Op.HANDOFF_GRANT, "/leases/a1/handoff[successor]", null, null, null, 140,
				160, Exchange.NO_ANSWER, null, Facts.NONE));
		assertThat(check()).extracting(Violation::invariant).contains("14-handoff-to-next-epoch");
	}

	@Test
	void aWriteOfTheFormerHolderAcceptedAfterTheHandoffIsAStaleWrite() {
		historyWithAHandoff();
		this.exchanges
			.add(exchange("w1", Op.CHECKPOINT, FIRST_LEASE, 1, 170, 180, 201, null, null).with(Facts.checkpoint(1L)));
		assertThat(check()).extracting(Violation::invariant).contains("1-no-stale-write");
	}

	private static Exchange resolve(UUID request, int status) {
		return new Exchange(500, "responder", Op.RESOLVE, 0, "POST", "/attention-requests/" + request + "/resolve",
				null, ITEM, null, false, null, 500, 510, Instant.EPOCH, status,
				(status == 409) ? "already_resolved" : null, null, null);
	}

	private List<Violation> check() {
		return new HistoryChecker(this.exchanges, this.leases, this.items, this.attention,
				new Operations(this.checkpoints, this.waits, this.events), this.world)
			.check()
			.violations();
	}

	private static Exchange exchange(String actor, Op op, UUID lease, long epoch, long sent, long received, int status,
			String code, String outcome) {
		return new Exchange(sent, actor, op, 0, "POST", "/", lease, ITEM, epoch, false, null, sent, received,
				Instant.EPOCH, status, code, outcome, null);
	}

	/** A request with a path and token of its own (handoffs, waits, events). */
	private static Exchange exchange(String actor, Op op, String path, String token, UUID lease, Long epoch, long sent,
			long received, int status, String outcome, Facts facts) {
		return new Exchange(sent, actor, op, 0, "POST", path, lease, ITEM, epoch, false, token, sent, received,
				Instant.EPOCH, status, null, outcome, null, facts);
	}

	/** An entry of one of w1's batches, or a single request about another item. */
	private static Exchange entry(Op op, UUID lease, UUID item, long epoch, boolean stale, long sent, long received,
			int status, String code, String outcome) {
		return new Exchange(sent, "w1", op, 0, "POST", "/", lease, item, epoch, stale, null, sent, received,
				Instant.EPOCH, status, code, outcome, null);
	}

}
