package dev.workgraph.access;

import java.security.MessageDigest;
import java.util.HexFormat;

import org.springframework.dao.DataAccessException;
import org.springframework.security.oauth2.core.OAuth2AuthenticatedPrincipal;
import org.springframework.security.oauth2.server.resource.introspection.BadOpaqueTokenException;
import org.springframework.security.oauth2.server.resource.introspection.OAuth2IntrospectionException;
import org.springframework.security.oauth2.server.resource.introspection.OpaqueTokenIntrospector;

/**
 * Turns a presented bearer token into its {@link Caller}: from the instance's
 * {@link TokenMemory} when it remembers the token, else by one indexed read by the
 * SHA-256 of the secret (then remembered). A revocation written by any instance holds on
 * every instance from the very next request: the memory forgets a revoked token before
 * the revocation is answered ({@link Revocations}). The secret itself is never compared,
 * logged or kept; the configured bootstrap token is compared by hash in constant time.
 */
class TokenIntrospector implements OpaqueTokenIntrospector {

	static final String BOOTSTRAP_NAME = "bootstrap";

	private final Tokens tokens;

	private final TokenMemory memory;

	/** SHA-256 of the configured bootstrap admin token, or null. */
	private final byte[] bootstrapHash;

	TokenIntrospector(Tokens tokens, TokenMemory memory, String bootstrapAdminToken) {
		this.tokens = tokens;
		this.memory = memory;
		this.bootstrapHash = (bootstrapAdminToken != null) ? TokenSecrets.hash(bootstrapAdminToken) : null;
	}

	@Override
	public OAuth2AuthenticatedPrincipal introspect(String token) {
		byte[] hash = TokenSecrets.hash(token);
		if (this.bootstrapHash != null && MessageDigest.isEqual(hash, this.bootstrapHash)) {
			return new Caller(null, BOOTSTRAP_NAME, Role.ADMIN, null);
		}
		String key = HexFormat.of().formatHex(hash);
		Caller remembered = this.memory.recall(key);
		if (remembered != null) {
			return remembered;
		}
		long generation = this.memory.generation();
		Tokens.Presented presented;
		try {
			presented = this.tokens.findBySecretHash(hash).orElse(null);
			if (presented != null && !presented.revoked() && presented.lastUseStale()) {
				this.tokens.touch(presented.caller().tokenId());
			}
		}
		catch (DataAccessException ex) {
			// Not the caller's fault: answered 503, never 401 (which would tell a worker
			// to
			// give up on a good token).
			throw new OAuth2IntrospectionException("The token could not be checked: " + ex.getClass().getSimpleName(),
					ex);
		}
		if (presented == null || presented.revoked()) {
			// The same answer for both, and no hint of the token in it.
			throw new BadOpaqueTokenException("Unknown or revoked token");
		}
		this.memory.remember(key, presented.caller(), generation);
		return presented.caller();
	}

}
