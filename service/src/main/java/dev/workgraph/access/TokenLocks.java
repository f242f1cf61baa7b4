package dev.workgraph.access;

import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Lets a change made for a token long after the token was checked (a long-poll claim that
 * waited) be made only while the token holds: checked again in the change's own
 * transaction, right before it writes.
 */
@Repository
public class TokenLocks {

	/**
	 * The token's row if it is not revoked, share-locked to the end of the transaction: a
	 * revocation committed before this reads it as revoked; one that comes later waits
	 * until the change has committed.
	 */
	static final String HOLD_UNREVOKED = """
			select id from access_tokens where id = :id and revoked_at is null for share
			""";

	private final JdbcClient jdbc;

	TokenLocks(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * In the caller's transaction: whether the token is still unrevoked, and then keeps
	 * it so until the transaction ends.
	 */
	public boolean holdUnrevoked(UUID tokenId) {
		return this.jdbc.sql(HOLD_UNREVOKED).param("id", tokenId).query((rs, n) -> 1).optional().isPresent();
	}

}
