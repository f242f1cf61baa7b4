package dev.workgraph.lease.claim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.lease.claim.ClaimAssignment.Candidate;
import dev.workgraph.lease.claim.Claims.Ask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a coalesced batch shares its locked candidates among its claims
 * ({@link Claims#assign}): each claim, in arrival order, gets what it would have got
 * alone, the item preferred for its worker when it is among the best of the remaining
 * priority, otherwise the first remaining candidate.
 */
class ClaimAssignmentTests {

	private static final UUID A = id(1);

	private static final UUID B = id(2);

	private static final UUID C = id(3);

	private static final UUID D = id(4);

	@Test
	void claimsTakeTheCandidatesInClaimOrderAndTheRestGetNothing() {
		List<Candidate> candidates = List.of(candidate(A, 5), candidate(B, 5), candidate(C, 0));
		assertThat(itemIds(ClaimAssignment.assign(candidates, asks("w1", "w2", "w3", "w4"), Map.of())))
			.containsExactly(A, B, C, null);
	}

	@Test
	void noCandidatesMeansNothingForEveryClaim() {
		assertThat(itemIds(ClaimAssignment.assign(List.of(), asks("w1", "w2"), Map.of()))).containsExactly(null, null);
	}

	@Test
	void aWorkerGetsItsPreferredItemOverOthersOfTheSamePriority() {
		List<Candidate> candidates = List.of(candidate(A, 5), candidate(B, 5), preferred(C, 5, "w2"));
		assertThat(itemIds(ClaimAssignment.assign(candidates, asks("w1", "w2", "w3"), Map.of()))).containsExactly(A, C,
				B);
	}

	@Test
	void aHigherPriorityItemStillComesBeforeThePreferredOne() {
		List<Candidate> candidates = List.of(candidate(A, 9), preferred(B, 5, "w1"), candidate(C, 5));
		assertThat(itemIds(ClaimAssignment.assign(candidates, asks("w1", "w1"), Map.of()))).containsExactly(A, B);
	}

	@Test
	void aPreferenceWhoseWindowClosedCountsForNothing() {
		List<Candidate> candidates = List.of(candidate(A, 5),
				new Candidate(B, "(0,2)", 5, "w1", false, "default", false));
		assertThat(itemIds(ClaimAssignment.assign(candidates, asks("w1"), Map.of()))).containsExactly(A);
	}

	@Test
	void anItemPreferredForAnotherWorkerIsAnOrdinaryCandidateForEveryoneElse() {
		List<Candidate> candidates = List.of(preferred(A, 5, "w9"), candidate(B, 5));
		assertThat(itemIds(ClaimAssignment.assign(candidates, asks("w1", "w9"), Map.of()))).containsExactly(A, B);
	}

	@Test
	void eachItemIsAssignedOnceWhateverThePreferences() {
		List<Candidate> candidates = List.of(preferred(A, 5, "w1"), preferred(B, 5, "w1"), candidate(C, 5),
				preferred(D, 1, "w2"));
		List<UUID> assigned = itemIds(ClaimAssignment.assign(candidates, asks("w1", "w1", "w1", "w2", "w2"), Map.of()));
		assertThat(assigned).containsExactly(A, B, C, D, null);
	}

	@Test
	void aCappedQueueHandsOutNoMoreThanItsRoomAndTheNextQueueServesTheRest() {
		List<Candidate> candidates = List.of(inQueue(A, 9, "capped"), inQueue(B, 9, "capped"), inQueue(C, 9, "capped"),
				candidate(D, 1));
		assertThat(itemIds(ClaimAssignment.assign(candidates, asks("w1", "w2", "w3"), Map.of("capped", 2))))
			.containsExactly(A, B, D);
	}

	@Test
	void aCappedQueueWithoutRoomHandsOutNothing() {
		List<Candidate> candidates = List.of(inQueue(A, 9, "capped"), inQueue(B, 9, "capped"));
		assertThat(itemIds(ClaimAssignment.assign(candidates, asks("w1", "w2"), Map.of("capped", 0))))
			.containsExactly(null, null);
	}

	private static Candidate inQueue(UUID item, int priority, String queue) {
		return new Candidate(item, "(0,1)", priority, null, false, queue, true);
	}

	/** The assigned items' ids, null where an ask got nothing. */
	private static List<UUID> itemIds(List<Candidate> assigned) {
		return assigned.stream().map((candidate) -> (candidate != null) ? candidate.itemId() : null).toList();
	}

	private static List<Ask> asks(String... workers) {
		List<Ask> asks = new ArrayList<>();
		Arrays.stream(workers).forEach((worker) -> asks.add(new Ask(UUID.randomUUID(), worker, 60)));
		return asks;
	}

	private static Candidate candidate(UUID item, int priority) {
		return new Candidate(item, "(0,1)", priority, null, false, "default", false);
	}

	private static Candidate preferred(UUID item, int priority, String worker) {
		return new Candidate(item, "(0,1)", priority, worker, true, "default", false);
	}

	private static UUID id(int n) {
		return new UUID(0x0000_0000_0000_7000L, n);
	}

}
