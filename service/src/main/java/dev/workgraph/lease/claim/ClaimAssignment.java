package dev.workgraph.lease.claim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Which of a batch's locked candidates each claim of the batch gets: the batched claim
 * hands them out in Java so that every claim gets what it would have got alone, one after
 * the other.
 */
final class ClaimAssignment {

	private ClaimAssignment() {
	}

	/**
	 * Hands out candidates (in claim order) to asks (in arrival order) as if each ask ran
	 * {@link Claims#CLAIM_NEXT_READY} in turn: an ask takes the first remaining
	 * candidate, unless a remaining candidate preferred for its worker (preference still
	 * open) has the same priority, then the first of those. A queue in {@code headroom}
	 * hands out no more than its room. Answers the candidate per ask, null for none.
	 */
	static List<Candidate> assign(List<Candidate> candidates, List<Claims.Ask> asks, Map<String, Integer> headroom) {
		List<Candidate> remaining = new ArrayList<>(candidates);
		List<Candidate> assigned = new ArrayList<>(asks.size());
		Map<String, Integer> room = new HashMap<>(headroom);
		for (Claims.Ask ask : asks) {
			remaining.removeIf((candidate) -> room.getOrDefault(candidate.queue(), 1) <= 0);
			if (remaining.isEmpty()) {
				assigned.add(null);
				continue;
			}
			Candidate pick = remaining.getFirst();
			for (Candidate candidate : remaining) {
				if (candidate.priority() < pick.priority()) {
					break;
				}
				if (candidate.preferenceOpen() && ask.workerId().equals(candidate.preferredWorkerId())) {
					pick = candidate;
					break;
				}
			}
			remaining.remove(pick);
			room.computeIfPresent(pick.queue(), (queue, left) -> left - 1);
			assigned.add(pick);
		}
		return assigned;
	}

	/**
	 * A locked claim candidate; {@code readyRow}: its ready entry's tuple id, valid while
	 * the transaction that locked it lasts; {@code preferenceOpen}: preferred for
	 * {@code preferredWorkerId} and still within the continuity window.
	 */
	record Candidate(UUID itemId, String readyRow, int priority, String preferredWorkerId, boolean preferenceOpen,
			String queue, boolean capped) {
	}

}
