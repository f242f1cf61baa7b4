package dev.workgraph.client;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;
import com.fasterxml.jackson.annotation.JsonProperty;

/** Where an item is in its life. */
public enum ItemStatus {

	/** Not terminal, not leased, and waiting for a dependency, a child or a human. */
	@JsonProperty("blocked")
	BLOCKED,
	/** Claimable. */
	@JsonProperty("ready")
	READY,
	/** A worker holds an active lease on it. */
	@JsonProperty("leased")
	LEASED,
	/** Terminal: done, with its result. */
	@JsonProperty("completed")
	COMPLETED,
	/** Terminal: an operator or a worker cancelled it (and its open descendants). */
	@JsonProperty("cancelled")
	CANCELLED,
	/** A status that a newer service knows and this client does not. */
	@JsonEnumDefaultValue
	UNKNOWN;

	/** The status as the API spells it, e.g. {@code ready}. */
	public String wire() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

	/** Completed or cancelled. */
	public boolean isTerminal() {
		return this == COMPLETED || this == CANCELLED;
	}

}
