package dev.workgraph.chaos;

import java.util.Set;

/** What a recorded request was meant to do, and which answers it may legitimately get. */
enum Op {

	CREATE(Set.of(201, 200), Set.of("item_terminal", "dependency_cycle")),

	CLAIM(Set.of(201, 204), Set.of()),

	RENEW(Set.of(200), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	COMPLETE(Set.of(200),
			Set.of("lease_expired", "lease_ended", "epoch_mismatch", "open_children", "unmet_dependencies")),

	RELEASE(Set.of(200), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	CANCEL_LEASE(Set.of(200), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	DECOMPOSE(Set.of(201), Set.of("lease_expired", "lease_ended", "epoch_mismatch", "dependency_cycle")),

	ASK_BLOCKING(Set.of(201), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	ASK_NON_BLOCKING(Set.of(201), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	RESOLVE(Set.of(200), Set.of("already_resolved")),

	ADD_DEPENDENCY(Set.of(201, 200), Set.of("item_terminal", "dependency_cycle")),

	REMOVE_DEPENDENCY(Set.of(204), Set.of("item_terminal", "not_found")),

	CANCEL_ITEM(Set.of(200), Set.of("item_terminal")),

	READ(Set.of(200), Set.of()),

	/** A request sent only to observe the service during a fault (e.g. a pool probe). */
	PROBE(Set.of(200), Set.of());

	static final Set<String> STALE_LEASE_CODES = Set.of("lease_expired", "lease_ended", "epoch_mismatch");

	private final Set<Integer> successes;

	private final Set<String> expectedRejections;

	Op(Set<Integer> successes, Set<String> expectedRejections) {
		this.successes = successes;
		this.expectedRejections = expectedRejections;
	}

	boolean succeeded(int status) {
		return this.successes.contains(status);
	}

	/** A 4xx this operation can get in a correct run (a race lost, a stale lease). */
	boolean expectedRejection(String code) {
		return code != null && this.expectedRejections.contains(code);
	}

	/** Presents a lease and an epoch: fenced by the lease guard. */
	boolean leaseMutation() {
		return switch (this) {
			case RENEW, COMPLETE, RELEASE, CANCEL_LEASE, DECOMPOSE, ASK_BLOCKING, ASK_NON_BLOCKING -> true;
			default -> false;
		};
	}

	/** Ends the lease it presents when it succeeds. */
	boolean endsLease() {
		return leaseMutation() && this != RENEW && this != ASK_NON_BLOCKING;
	}

	/** The outcome lease history must show for a lease this operation ended. */
	String outcome() {
		return switch (this) {
			case COMPLETE -> "completed";
			case RELEASE -> "released";
			case CANCEL_LEASE -> "cancelled";
			case DECOMPOSE -> "decomposed";
			case ASK_BLOCKING -> "attention_requested";
			default -> null;
		};
	}

}
