package dev.workgraph.problem;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the service refuses for a reason the caller can act on. It becomes an RFC
 * 9457 problem with {@link #code()}; {@link #properties()} carry the ids involved.
 * Subclasses are named for what happened ({@code ItemNotFound},
 * {@code DependencyCycleDetected}). Throwing it inside a transaction rolls that
 * transaction back, so a rejected request never leaves anything half-written.
 */
public class RequestRejected extends RuntimeException {

	private final ProblemCode code;

	private final Map<String, Object> properties = new LinkedHashMap<>();

	public RequestRejected(ProblemCode code, String detail) {
		super(detail, null, false, false);
		this.code = code;
	}

	/**
	 * Adds an extension member naming an id or a value involved.
	 * @throws IllegalArgumentException if the name is one of the problem's own members
	 * (RFC 9457's {@code type}, {@code title}, {@code status}, {@code detail},
	 * {@code instance}, or {@code code} and {@code errors}) or already added: the JSON
	 * would carry the key twice, and every parser keeps only one of them
	 */
	public RequestRejected with(String name, Object value) {
		if (Problems.RESERVED_MEMBERS.contains(name) || this.properties.containsKey(name)) {
			throw new IllegalArgumentException("Problem member '" + name + "' would repeat a key");
		}
		this.properties.put(name, value);
		return this;
	}

	public ProblemCode code() {
		return this.code;
	}

	public String detail() {
		return getMessage();
	}

	public Map<String, Object> properties() {
		return this.properties;
	}

}
