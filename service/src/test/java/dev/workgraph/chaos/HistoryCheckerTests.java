package dev.workgraph.chaos;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.chaos.History.Violation;
import dev.workgraph.chaos.ServerHistory.AttentionRow;
import dev.workgraph.chaos.ServerHistory.ItemRow;
import dev.workgraph.chaos.ServerHistory.LeaseRow;
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

	private final World world = new World();

	/**
	 * Claimed by w1 at t=100, expired at t=200 (µs on PostgreSQL's clock, ns on the
	 * client's); claimed by w2 at t=300 and completed at t=400.
	 */
	private void cleanHistory() {
		this.world.created(ITEM, "i1");
		this.items.put(ITEM, new ItemRow(ITEM, "i1", "completed", 2, null, SECOND_LEASE.toString()));
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

	private static Exchange resolve(UUID request, int status) {
		return new Exchange(500, "responder", Op.RESOLVE, 0, "POST", "/attention-requests/" + request + "/resolve",
				null, ITEM, null, false, null, 500, 510, Instant.EPOCH, status,
				(status == 409) ? "already_resolved" : null, null, null);
	}

	private List<Violation> check() {
		return new HistoryChecker(this.exchanges, this.leases, this.items, this.attention, this.world).check()
			.violations();
	}

	private static Exchange exchange(String actor, Op op, UUID lease, long epoch, long sent, long received, int status,
			String code, String outcome) {
		return new Exchange(sent, actor, op, 0, "POST", "/", lease, ITEM, epoch, false, null, sent, received,
				Instant.EPOCH, status, code, outcome, null);
	}

	/** An entry of one of w1's batches, or a single request about another item. */
	private static Exchange entry(Op op, UUID lease, UUID item, long epoch, boolean stale, long sent, long received,
			int status, String code, String outcome) {
		return new Exchange(sent, "w1", op, 0, "POST", "/", lease, item, epoch, stale, null, sent, received,
				Instant.EPOCH, status, code, outcome, null);
	}

}
