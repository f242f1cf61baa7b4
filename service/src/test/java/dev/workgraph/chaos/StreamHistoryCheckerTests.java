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
 * The checker judges a stream worker's messages (recorded by {@link StreamConnection})
 * exactly as HTTP requests: a pushed lease is a claim, a write over the stream is the
 * request it stands for, and the credits outstanding when a stream ended explain leases
 * the worker never heard of, no more of them than there were credits. Histories are built
 * by hand, so every case is exact.
 */
class StreamHistoryCheckerTests {

	private static final UUID ITEM = UUID.fromString("00000000-0000-7000-8000-000000000001");

	private static final UUID OTHER_ITEM = UUID.fromString("00000000-0000-7000-8000-000000000002");

	private static final UUID FIRST_LEASE = UUID.fromString("00000000-0000-7000-8000-0000000000a1");

	private static final UUID SECOND_LEASE = UUID.fromString("00000000-0000-7000-8000-0000000000a2");

	private static final UUID NEXT_LEASE = UUID.fromString("00000000-0000-7000-8000-0000000000b1");

	private final List<Exchange> exchanges = new ArrayList<>();

	private final List<LeaseRow> leases = new ArrayList<>();

	private final Map<UUID, ItemRow> items = new HashMap<>();

	private final World world = new World();

	/**
	 * s1 is pushed the item's first lease at t=100 and fails it at t=200 (a stale
	 * checkpoint after that is refused); s2 is pushed the second at t=300 and completes
	 * it at t=400 with the next claim folded in, which brings the other item; s2
	 * completes that at t=500.
	 */
	private void cleanStreamHistory() {
		this.world.created(ITEM, "i1");
		this.world.created(OTHER_ITEM, "i2");
		// One attempt: the failed lease.
		this.items.put(ITEM, new ItemRow(ITEM, "i1", "completed", 2, null, SECOND_LEASE.toString(), 1, null));
		this.items.put(OTHER_ITEM, new ItemRow(OTHER_ITEM, "i2", "completed", 1, null, NEXT_LEASE.toString()));
		this.leases.add(new LeaseRow(FIRST_LEASE, ITEM, "s1", 1, 100, null, 900, 200L, "failed", false, "alpha"));
		this.leases.add(new LeaseRow(SECOND_LEASE, ITEM, "s2", 2, 300, null, 900, 400L, "completed", false, "alpha"));
		this.leases
			.add(new LeaseRow(NEXT_LEASE, OTHER_ITEM, "s2", 1, 400, null, 900, 500L, "completed", false, "alpha"));
		this.exchanges.add(ws("s1", Op.STREAM_GRANT, FIRST_LEASE, ITEM, 1, false, 50, 110, 201, null, null));
		this.exchanges.add(ws("s1", Op.FAIL, FIRST_LEASE, ITEM, 1, false, 190, 210, 200, null, "failed"));
		this.exchanges.add(ws("s1", Op.CHECKPOINT, FIRST_LEASE, ITEM, 1, true, 220, 230, 409, "lease_ended", null));
		this.exchanges.add(ws("s2", Op.STREAM_GRANT, SECOND_LEASE, ITEM, 2, false, 250, 310, 201, null, null));
		this.exchanges.add(ws("s2", Op.COMPLETE, SECOND_LEASE, ITEM, 2, false, 390, 410, 200, null, "completed"));
		this.exchanges.add(ws("s2", Op.STREAM_GRANT, NEXT_LEASE, OTHER_ITEM, 1, false, 390, 410, 201, null, null));
		this.exchanges.add(ws("s2", Op.COMPLETE, NEXT_LEASE, OTHER_ITEM, 1, false, 490, 510, 200, null, "completed"));
	}

	@Test
	void cleanStreamHistoryPasses() {
		cleanStreamHistory();
		assertThat(check()).isEmpty();
	}

	@Test
	void aLeasePushedToTwoStreamsAtOneEpochIsReported() {
		cleanStreamHistory();
		this.exchanges.add(ws("s3", Op.STREAM_GRANT, SECOND_LEASE, ITEM, 2, false, 250, 320, 201, null, null));
		assertThat(check()).extracting(Violation::invariant).contains("2-epochs-and-no-overlap");
	}

	@Test
	void aStreamWriteAcceptedAfterTheNextEpochWasPushedIsAStaleWrite() {
		cleanStreamHistory();
		// s1 renews over its stream after s2 was pushed the next epoch, and is answered
		// 200.
		this.exchanges.add(ws("s1", Op.RENEW, FIRST_LEASE, ITEM, 1, false, 320, 330, 200, null, null));
		assertThat(check()).extracting(Violation::invariant).contains("1-no-stale-write");
	}

	@Test
	void anAcceptedFailureTheHistoryDoesNotShowIsReported() {
		cleanStreamHistory();
		this.leases.set(0, new LeaseRow(FIRST_LEASE, ITEM, "s1", 1, 100, null, 900, 200L, "released", false, "alpha"));
		// (The item's stored attempt then disagrees with its history too.)
		assertThat(check()).extracting(Violation::invariant).contains("3-one-outcome");
	}

	@Test
	void aCompletionCutMidMessageThatWasDoneIsAStaleWrite() {
		cleanStreamHistory();
		// The database shows the other item completed, but its only completion never
		// reached the service whole (cut mid-message, so not recorded).
		this.exchanges.removeLast();
		assertThat(check()).extracting(Violation::detail)
			.singleElement()
			.satisfies((detail) -> assertThat(detail).contains("no completion under it was accepted")
				.contains(NEXT_LEASE.toString()));
	}

	@Test
	void leasesAStreamNeverHeardOfAreExplainedByItsOutstandingCreditsUpToTheirNumber() {
		cleanStreamHistory();
		for (int i = 0; i < 2; i++) {
			this.leases.add(new LeaseRow(UUID.randomUUID(), UUID.randomUUID(), "s1", 1, 600, null, 800, 800L, "expired",
					false, "alpha"));
		}
		this.exchanges.add(ws("s1", Op.STREAM_GRANT, null, null, 0, false, 590, 590, Exchange.NO_ANSWER, null, null));
		assertThat(check()).extracting(Violation::invariant).containsExactly("3-one-outcome");
		// Two credits were outstanding when the stream ended: both may have been granted.
		this.exchanges.add(ws("s1", Op.STREAM_GRANT, null, null, 0, false, 590, 590, Exchange.NO_ANSWER, null, null));
		assertThat(check()).isEmpty();
	}

	@Test
	void eachStreamAnswerIsJudgedAsTheRequestItStandsFor() {
		History history = new History();
		history.recordMessage(ws("s1", Op.CHECKPOINT, FIRST_LEASE, ITEM, 0, true, 1, 2, 201, null, null), null);
		history.recordMessage(ws("s1", Op.FAIL, FIRST_LEASE, ITEM, 1, false, 1, 2, 409, null, null), null);
		history.recordMessage(ws("s1", Op.RENEW, FIRST_LEASE, ITEM, 1, false, 1, 2, 500, "internal_error", null),
				"{\"status\":500,\"code\":\"internal_error\",\"detail\":\"PSQLException\"}");
		history.recordMessage(ws("s1", Op.RELEASE, FIRST_LEASE, ITEM, 1, false, 1, 2, Exchange.TIMED_OUT, null, null),
				null);
		history.recordMessage(
				ws("s1", Op.COMPLETE, FIRST_LEASE, ITEM, 1, false, 1, 2, 503, "service_unavailable", null),
				"{\"status\":503,\"code\":\"service_unavailable\"}");
		assertThat(history.violations()).extracting(Violation::invariant)
			.containsExactlyInAnyOrder("stale-write-accepted", "problem-format", "expected-answers", "no-internals",
					"no-5xx", "no-hang");
	}

	private List<Violation> check() {
		return new HistoryChecker(this.exchanges, this.leases, this.items, List.<AttentionRow>of(), this.world).check()
			.violations();
	}

	private static Exchange ws(String actor, Op op, UUID lease, UUID item, long epoch, boolean stale, long sent,
			long received, int status, String code, String outcome) {
		return new Exchange(sent, actor, op, 0, "WS", "ws:" + op, lease, item, (lease != null) ? epoch : null, stale,
				null, sent, received, Instant.EPOCH, status, code, outcome, null);
	}

}
