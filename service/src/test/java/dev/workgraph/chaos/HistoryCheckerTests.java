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
		this.leases.add(new LeaseRow(FIRST_LEASE, ITEM, "w1", 1, 100, null, 200, 200L, "expired", false));
		this.leases.add(new LeaseRow(SECOND_LEASE, ITEM, "w2", 2, 300, null, 900, 400L, "completed", false));
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
	void overlappingLeasesAreReported() {
		cleanHistory();
		this.leases.set(1, new LeaseRow(SECOND_LEASE, ITEM, "w2", 2, 150, null, 900, 400L, "completed", false));
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
		this.leases.set(1, new LeaseRow(SECOND_LEASE, ITEM, "w2", 3, 300, null, 900, 400L, "completed", false));
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
		this.leases.set(1, new LeaseRow(SECOND_LEASE, ITEM, "w2", 2, 300, null, 900, null, null, true));
		assertThat(check()).extracting(Violation::invariant).contains("3-one-outcome");
	}

	@Test
	void anEndingOtherThanExpiryAfterExpiresAtIsAStaleWrite() {
		cleanHistory();
		this.leases.set(1, new LeaseRow(SECOND_LEASE, ITEM, "w2", 2, 300, null, 400, 400L, "completed", false));
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
		this.leases.set(0, new LeaseRow(FIRST_LEASE, ITEM, "w1", 1, 100, null, 250, 200L, "completed", false));
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

}
