package dev.workgraph.model;

import java.util.Locale;

/** How a lease ended; exactly one per ended lease, written once to lease_history. */
public enum LeaseOutcome {

	COMPLETED, RELEASED, CANCELLED, DECOMPOSED, ATTENTION_REQUESTED, EXPIRED;

	public String wire() {
		return name().toLowerCase(Locale.ROOT);
	}

}
