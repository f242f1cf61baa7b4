package dev.workgraph.client;

import java.time.Instant;
import java.util.UUID;

/**
 * A token as listed (never with its secret).
 *
 * @param id its id
 * @param name its name
 * @param role its role
 * @param workerId the worker identity of a worker token
 * @param createdAt when it was created
 * @param lastUsedAt when it was last used, or null
 * @param revokedAt when it was revoked, or null
 */
public record Token(UUID id, String name, TokenRole role, String workerId, Instant createdAt, Instant lastUsedAt,
		Instant revokedAt) {
}
