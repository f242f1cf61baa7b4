package dev.workgraph.client;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;
import com.fasterxml.jackson.annotation.JsonProperty;

/** How a lease ended; exactly one per ended lease, never changed afterwards. */
public enum LeaseOutcome {

	@JsonProperty("completed")
	COMPLETED, @JsonProperty("released")
	RELEASED, @JsonProperty("cancelled")
	CANCELLED, @JsonProperty("decomposed")
	DECOMPOSED, @JsonProperty("attention_requested")
	ATTENTION_REQUESTED, @JsonProperty("expired")
	EXPIRED, @JsonProperty("handed_off")
	HANDED_OFF,
	/** The holder reported a failure ({@code POST /leases/{id}/fail}). */
	@JsonProperty("failed")
	FAILED,
	/** An outcome that a newer service knows and this client does not. */
	@JsonEnumDefaultValue
	UNKNOWN

}
