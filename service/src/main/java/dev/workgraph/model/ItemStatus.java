package dev.workgraph.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** Where an item is in its life (docs/http-api.md, "Statuses and readiness"). */
public enum ItemStatus {

	/** Not terminal, not leased, and waiting for a dependency, a child or a human. */
	BLOCKED,
	/** Not terminal, not leased, nothing to wait for: the next claim may take it. */
	READY,
	/** A worker holds an active lease on it. */
	LEASED,
	/** Terminal: a lease holder completed it. */
	COMPLETED,
	/** Terminal: an operator or a lease holder cancelled it, or an ancestor. */
	CANCELLED;

	@JsonValue
	public String wire() {
		return Wire.name(this);
	}

	public boolean isTerminal() {
		return this == COMPLETED || this == CANCELLED;
	}

	public static ItemStatus fromWire(String value) {
		return Wire.parse(ItemStatus.class, value);
	}

}
