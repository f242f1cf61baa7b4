package dev.workgraph.client;

import java.time.Instant;
import java.util.UUID;

/**
 * A token just created: the only time the service shows its secret. {@link #toString()}
 * leaves the secret out, so that it does not end up in a log by accident.
 *
 * @param id the token's id (for listing and revoking)
 * @param name its name
 * @param role its role
 * @param workerId the worker identity of a worker token
 * @param token the secret to send as {@code Authorization: Bearer <token>}
 * @param createdAt when it was created
 */
public record IssuedToken(UUID id, String name, TokenRole role, String workerId, String token, Instant createdAt) {

	@Override
	public String toString() {
		return "IssuedToken[id=" + this.id + ", name=" + this.name + ", role=" + this.role + ", workerId="
				+ this.workerId + ", token=(secret), createdAt=" + this.createdAt + "]";
	}

}
