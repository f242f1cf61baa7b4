package dev.workgraph.access;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.workgraph.notification.ChannelSubscriber;

import org.springframework.stereotype.Component;

/**
 * The tokens this instance has checked, so that a request does not read
 * {@code access_tokens} each time (that read was most of what access control cost).
 *
 * <p>
 * A revocation must still hold from the very next request on every instance, so the
 * memory is trusted only while this instance's listener session is connected: every
 * revocation is announced on {@value #REVOKED_CHANNEL} (by trigger, V10), the listener
 * makes the memory forget the token and then confirms on
 * {@value Revocations#FORGOTTEN_CHANNEL}, and {@code DELETE /tokens/{id}} answers only
 * once every listening instance has confirmed (see {@link Revocations}). Without a
 * listener (not yet connected, connection lost) nothing is remembered and every request
 * reads the table.
 *
 * <p>
 * A read racing a revocation must not put back what the revocation removed: each
 * forgetting moves {@link #generation} on, and a read remembers its answer only if no
 * forgetting happened since it began.
 */
@Component
public class TokenMemory implements ChannelSubscriber {

	/** The channel revocations are announced on; the payload is the token id, or '*'. */
	public static final String REVOKED_CHANNEL = "work_graph_token_revoked";

	static final String EVERY_TOKEN = "*";

	/**
	 * A token is read again after this long, which also records its use (at most once a
	 * minute, as without the memory).
	 */
	private static final Duration REMEMBERED_FOR = Duration.ofMinutes(1);

	private static final int REMEMBERED_TOKENS = 100_000;

	/**
	 * Read by every request: its upkeep runs on the reader's thread (see LeaseHolders).
	 */
	private final Cache<String, Caller> callers = Caffeine.newBuilder()
		.maximumSize(REMEMBERED_TOKENS)
		.expireAfterWrite(REMEMBERED_FOR)
		.executor(Runnable::run)
		.build();

	private volatile boolean trusted;

	/** Guarded by this. */
	private long generation;

	/** The caller of a token remembered by the SHA-256 of its secret, or null. */
	Caller recall(String secretHash) {
		return this.trusted ? this.callers.getIfPresent(secretHash) : null;
	}

	/** To pass to {@link #remember} after reading the token. */
	synchronized long generation() {
		return this.generation;
	}

	/** Remembers a token read while no forgetting happened (since {@code generation}). */
	synchronized void remember(String secretHash, Caller caller, long generationBeforeRead) {
		if (this.trusted && this.generation == generationBeforeRead) {
			this.callers.put(secretHash, caller);
		}
	}

	/** The listener is connected and listening: revocations will be heard from now on. */
	@Override
	public void listening() {
		forgetEverything();
		this.trusted = true;
	}

	/** The listener lost its connection: revocations may go unheard until it is back. */
	@Override
	public void notListening() {
		this.trusted = false;
		forgetEverything();
	}

	/** A revocation announced on {@value #REVOKED_CHANNEL}. */
	public void revoked(String payload) {
		if (EVERY_TOKEN.equals(payload)) {
			forgetEverything();
			return;
		}
		UUID tokenId;
		try {
			tokenId = UUID.fromString(payload);
		}
		catch (IllegalArgumentException ex) {
			forgetEverything(); // not ours to interpret: forget too much rather than too
								// little
			return;
		}
		synchronized (this) {
			this.generation++;
			this.callers.asMap().values().removeIf((caller) -> tokenId.equals(caller.tokenId()));
		}
	}

	private synchronized void forgetEverything() {
		this.generation++;
		this.callers.invalidateAll();
	}

	@Override
	public List<String> channels() {
		return List.of(REVOKED_CHANNEL);
	}

	/**
	 * Forgets the revoked token, then says so on {@value Revocations#FORGOTTEN_CHANNEL}
	 * (with this session's process id): the revoking instance waits for that.
	 */
	@Override
	public void notified(String channel, String payload, Session session) throws SQLException {
		revoked(payload);
		session.notify(Revocations.FORGOTTEN_CHANNEL, session.backendPid() + ":" + payload);
	}

}
