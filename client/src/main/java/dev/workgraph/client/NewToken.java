package dev.workgraph.client;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A request for a new bearer token (admins only).
 *
 * @param name who or what will use it (1–200 characters); recorded as the author of its
 * changes
 * @param role what it may do
 * @param workerId the worker identity it is bound to: required for a worker token, absent
 * otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NewToken(String name, TokenRole role, String workerId) {

	public NewToken {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(role, "role");
	}

	public static NewToken worker(String name, String workerId) {
		return new NewToken(name, TokenRole.WORKER, Objects.requireNonNull(workerId, "workerId"));
	}

	public static NewToken operator(String name) {
		return new NewToken(name, TokenRole.OPERATOR, null);
	}

	public static NewToken admin(String name) {
		return new NewToken(name, TokenRole.ADMIN, null);
	}

}
