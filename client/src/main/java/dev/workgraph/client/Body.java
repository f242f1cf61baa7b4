package dev.workgraph.client;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A request's JSON object, member by member and in order. A member whose value is null is
 * left out: the service then uses its default.
 */
final class Body {

	private final Map<String, Object> members = new LinkedHashMap<>();

	private Body() {
	}

	static Body of(String name, Object value) {
		return new Body().with(name, value);
	}

	/** The body of a write under a lease: its epoch first, then this member. */
	static Body fenced(LeaseRef lease, String name, Object value) {
		return of("epoch", lease.epoch()).with(name, value);
	}

	Body with(String name, Object value) {
		if (value != null) {
			this.members.put(name, value);
		}
		return this;
	}

	@JsonValue
	Map<String, Object> members() {
		return this.members;
	}

}
