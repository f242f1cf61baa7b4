package dev.workgraph.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** How a lease ended; exactly one per ended lease, written once to lease_history. */
public enum LeaseOutcome {

	/** The holder completed the item. */
	COMPLETED,
	/** The holder gave the item back to the queue. */
	RELEASED,
	/** The holder or an operator cancelled the item (or an ancestor of it). */
	CANCELLED,
	/** The holder split the item into children; it waits for them. */
	DECOMPOSED,
	/** The holder asked a blocking question; the item waits for the answer. */
	ATTENTION_REQUESTED,
	/** Nobody renewed the lease before its expiresAt. */
	EXPIRED,
	/** The holder failed; the item is retried after a back-off or held for a human. */
	FAILED,

	/**
	 * The holder handed the item to a named successor, whose lease (epoch + 1) began in
	 * the same transaction.
	 */
	HANDED_OFF,

	/**
	 * The holder parked the item on an event (a durable wait); it is blocked until the
	 * event arrives or the wait's deadline passes.
	 */
	WAITING;

	@JsonValue
	public String wire() {
		return Wire.name(this);
	}

	public static LeaseOutcome fromWire(String value) {
		return Wire.parse(LeaseOutcome.class, value);
	}

}
