package dev.workgraph.chaos;

import java.util.Set;

/** What a recorded request was meant to do, and which answers it may legitimately get. */
enum Op {

	CREATE(Set.of(201, 200), Set.of("item_terminal", "dependency_cycle")),

	CLAIM(Set.of(201, 204), Set.of()),

	RENEW(Set.of(200), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	COMPLETE(Set.of(200),
			Set.of("lease_expired", "lease_ended", "epoch_mismatch", "open_children", "unmet_dependencies")),

	/**
	 * {@code POST /claims/batch} itself. Each lease it granted is recorded after it as a
	 * {@link #CLAIM_BATCH_ENTRY}, so the checker sees claims like any other.
	 */
	CLAIM_BATCH(Set.of(201, 204), Set.of()),

	/**
	 * One lease a batch claim granted, or, when the batch's answer was lost, one of the
	 * {@code limit} it may have granted.
	 */
	CLAIM_BATCH_ENTRY(Set.of(201), Set.of()),

	/**
	 * {@code POST /completions} itself: 200 whatever its entries came to. Each entry is
	 * recorded after it as a {@link #COMPLETE_BATCH_ENTRY} with its own answer.
	 */
	COMPLETE_BATCH(Set.of(200), Set.of()),

	/** One entry of a batch completion: fenced on its own, so judged as a COMPLETE. */
	COMPLETE_BATCH_ENTRY(Set.of(200),
			Set.of("lease_expired", "lease_ended", "epoch_mismatch", "open_children", "unmet_dependencies")),

	RELEASE(Set.of(200), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	CANCEL_LEASE(Set.of(200), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	/**
	 * A lease the worker stream pushed (docs/worker-stream.md), or one a stream
	 * completion's {@code claimNext} brought: a claim like any other. Recorded unanswered
	 * for each credit still outstanding when a stream ended (the service may have granted
	 * it a lease that never arrived), as a lost batch claim's entries are.
	 */
	STREAM_GRANT(Set.of(201), Set.of()),

	DECOMPOSE(Set.of(201), Set.of("lease_expired", "lease_ended", "epoch_mismatch", "dependency_cycle")),

	ASK_BLOCKING(Set.of(201), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	ASK_NON_BLOCKING(Set.of(201), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	RESOLVE(Set.of(200), Set.of("already_resolved")),

	ADD_DEPENDENCY(Set.of(201, 200), Set.of("item_terminal", "dependency_cycle")),

	REMOVE_DEPENDENCY(Set.of(204), Set.of("item_terminal", "not_found")),

	CANCEL_ITEM(Set.of(200), Set.of("item_terminal")),

	/**
	 * {@code POST /leases/{id}/checkpoints}: saves progress under the lease, which stays
	 * active.
	 */
	CHECKPOINT(Set.of(201), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	/**
	 * {@code POST /leases/{id}/fail}: the lease ends {@code failed}, one attempt more.
	 */
	FAIL(Set.of(200), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	/** {@code POST /leases/{id}/waits}: the lease ends {@code waiting} on an event. */
	WAIT(Set.of(201), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	/**
	 * {@code POST /leases/{id}/handoff}: the lease ends {@code handed_off} and the item
	 * is leased to the named successor. The successor's lease is recorded after it as a
	 * {@link #HANDOFF_GRANT}, so the checker sees it as any other grant.
	 */
	HANDOFF(Set.of(201), Set.of("lease_expired", "lease_ended", "epoch_mismatch")),

	/**
	 * The lease a handoff granted its successor (the exchange's actor), or, when the
	 * handoff's answer was lost, the one it may have granted.
	 */
	HANDOFF_GRANT(Set.of(201), Set.of()),

	/** {@code POST /events}: 202 a new event, 200 one whose id was seen before. */
	EVENT(Set.of(202, 200), Set.of()),

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
			case RENEW, COMPLETE, COMPLETE_BATCH_ENTRY, RELEASE, CANCEL_LEASE, DECOMPOSE, ASK_BLOCKING,
					ASK_NON_BLOCKING, CHECKPOINT, FAIL, WAIT, HANDOFF ->
				true;
			default -> false;
		};
	}

	/**
	 * Grants a lease when it succeeds: a single claim, one lease of a batch claim, or the
	 * successor's lease of a handoff.
	 */
	boolean grantsLease() {
		return this == CLAIM || this == CLAIM_BATCH_ENTRY || this == HANDOFF_GRANT || this == STREAM_GRANT;
	}

	/** Completes the item of the lease it presents when it succeeds. */
	boolean completes() {
		return this == COMPLETE || this == COMPLETE_BATCH_ENTRY;
	}

	/**
	 * One entry of a batch, recorded after the batch request itself (which History checks
	 * as an HTTP answer); the checker judges each entry as the single request it stands
	 * for.
	 */
	boolean entry() {
		return this == CLAIM_BATCH_ENTRY || this == COMPLETE_BATCH_ENTRY || this == HANDOFF_GRANT;
	}

	/** Ends the lease it presents when it succeeds. */
	boolean endsLease() {
		return leaseMutation() && this != RENEW && this != ASK_NON_BLOCKING && this != CHECKPOINT;
	}

	/** The outcome lease history must show for a lease this operation ended. */
	String outcome() {
		return switch (this) {
			case COMPLETE, COMPLETE_BATCH_ENTRY -> "completed";
			case RELEASE -> "released";
			case CANCEL_LEASE -> "cancelled";
			case DECOMPOSE -> "decomposed";
			case ASK_BLOCKING -> "attention_requested";
			case FAIL -> "failed";
			case WAIT -> "waiting";
			case HANDOFF -> "handed_off";
			default -> null;
		};
	}

}
