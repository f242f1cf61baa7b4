package dev.workgraph.client;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;
import com.fasterxml.jackson.annotation.JsonProperty;

/** What a token may do. */
public enum TokenRole {

	/** Claims and works on its own leases, as exactly one {@code workerId}. */
	@JsonProperty("worker")
	WORKER,
	/** Everything on items, every lease read, the attention inbox; never claims. */
	@JsonProperty("operator")
	OPERATOR,
	/** An operator who also manages tokens. */
	@JsonProperty("admin")
	ADMIN,
	/** A role that a newer service knows and this client does not. */
	@JsonEnumDefaultValue
	UNKNOWN

}
