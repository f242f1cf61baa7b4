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

	/**
	 * How long the memory is trusted after the listener's last round trip was sent: a
	 * listener cut off from the database (a network partition) hears no revocation, and
	 * may not even learn that its session was terminated, so its instance reads every
	 * token from the table at most this long after the last round trip that would have
	 * brought a revocation. A revocation that had to cut an instance off answers no
	 * sooner than this after it committed (see {@link Revocations}).
	 */
	public static final Duration TRUSTED_FOR = Duration.ofSeconds(2);

	private volatile boolean trusted;

	/** System.nanoTime until which the memory is trusted. */
	private volatile long trustedUntil;

	/** The backend pid of this instance's listener session, 0 while there is none. */
	private volatile int listenerPid;

	/** Guarded by this. */
	private long generation;

	/** The caller of a token remembered by the SHA-256 of its secret, or null. */
	Caller recall(String secretHash) {
		return trusted() ? this.callers.getIfPresent(secretHash) : null;
	}

	private boolean trusted() {
		return this.trusted && System.nanoTime() - this.trustedUntil < 0;
	}

	/** To pass to {@link #remember} after reading the token. */
	synchronized long generation() {
		return this.generation;
	}

	/** Remembers a token read while no forgetting happened (since {@code generation}). */
	synchronized void remember(String secretHash, Caller caller, long generationBeforeRead) {
		if (trusted() && this.generation == generationBeforeRead) {
			this.callers.put(secretHash, caller);
		}
	}

	@Override
	public void listeningAs(int backendPid) {
		this.listenerPid = backendPid;
	}

	/**
	 * The listener is connected, listening and registered: revocations will be heard from
	 * now on.
	 */
	@Override
	public void listening() {
		forgetEverything();
		this.trustedUntil = System.nanoTime() + TRUSTED_FOR.toNanos();
		this.trusted = true;
	}

	/**
	 * The listener made a round trip sent at {@code sentAt} (System.nanoTime) and acted
	 * on every notification that came with it.
	 */
	@Override
	public void roundTrip(long sentAt) {
		this.trustedUntil = sentAt + TRUSTED_FOR.toNanos();
	}

	/** The listener lost its connection: revocations may go unheard until it is back. */
	@Override
	public void notListening() {
		this.trusted = false;
		this.listenerPid = 0;
		forgetEverything();
	}

	/** This instance's listener session, 0 while there is none. */
	int listenerPid() {
		return this.listenerPid;
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
