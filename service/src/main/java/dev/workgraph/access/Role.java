package dev.workgraph.access;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonValue;

/** What a token may do (docs/http-api.md, "Access"). */
public enum Role {

	/** Claims and works on its own leases, as exactly one {@code workerId}. */
	WORKER,
	/**
	 * Everything on items, every lease read, the attention inbox, actuator; never claims.
	 */
	OPERATOR,
	/** An operator who also manages tokens. */
	ADMIN;

	@JsonValue
	public String wire() {
		return name().toLowerCase(Locale.ROOT);
	}

	/** The Spring Security authority of the role, e.g. {@code ROLE_WORKER}. */
	String authority() {
		return "ROLE_" + name();
	}

	static Role fromWire(String wire) {
		for (Role role : values()) {
			if (role.wire().equals(wire)) {
				return role;
			}
		}
		throw new IllegalArgumentException("Unknown role " + wire);
	}

}
