package dev.workgraph.access;

import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonValue;

import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/** What a token may do (docs/http-api.md, "Access"). */
public enum Role {

	/** Claims and works on its own leases, as exactly one {@code workerId}. */
	WORKER,
	/**
	 * Everything on items, every lease read, the attention inbox, actuator; never claims.
	 */
	OPERATOR,
	/** An operator who also manages tokens. */
	ADMIN,
	/**
	 * A system that sends events ({@code POST /events}), perhaps only of some names, and
	 * does nothing else.
	 */
	EVENTS;

	@JsonValue
	public String wire() {
		return name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The Spring Security authorities the role holds: its own ({@code ROLE_WORKER}, ...)
	 * and, for an admin, the operator's, since an admin may do everything an operator
	 * may. Granted as data rather than through a {@code RoleHierarchy}, which formats a
	 * debug message on every authorization check whether debug logging is on or not.
	 */
	List<GrantedAuthority> authorities() {
		return switch (this) {
			case WORKER -> WORKER_AUTHORITIES;
			case OPERATOR -> OPERATOR_AUTHORITIES;
			case ADMIN -> ADMIN_AUTHORITIES;
			case EVENTS -> EVENTS_AUTHORITIES;
		};
	}

	private static final List<GrantedAuthority> WORKER_AUTHORITIES = List.of(authority("WORKER"));

	private static final List<GrantedAuthority> OPERATOR_AUTHORITIES = List.of(authority("OPERATOR"));

	private static final List<GrantedAuthority> EVENTS_AUTHORITIES = List.of(authority("EVENTS"));

	private static final List<GrantedAuthority> ADMIN_AUTHORITIES = List.of(authority("ADMIN"), authority("OPERATOR"));

	private static GrantedAuthority authority(String role) {
		return new SimpleGrantedAuthority("ROLE_" + role);
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
