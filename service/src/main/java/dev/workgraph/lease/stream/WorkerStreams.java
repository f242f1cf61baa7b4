package dev.workgraph.lease.stream;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.workgraph.access.TokenLocks;
import dev.workgraph.access.TokenMemory;
import dev.workgraph.notification.ChannelSubscriber;
import dev.workgraph.sql.Transactions;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/**
 * The open worker streams of this instance, and whether each one's token still holds. A
 * stream is authenticated once, when it opens; a revocation must still hold from the very
 * next message, as it does from the very next request (docs/adr/0007). So a stream is
 * trusted only as {@link TokenMemory} trusts what it remembers: while the listener hears
 * revocations. A revocation heard marks the token's streams revoked before the instance
 * confirms it (this subscriber is called first), so that once {@code DELETE /tokens/{id}}
 * answers, none of them does anything more, and closes them. While the listener is away
 * or silent, and after a revocation of every token, each stream reads its token again
 * before its next message.
 *
 * <p>
 * One token may hold at most {@code workgraph.stream.max-streams-per-token} streams open
 * on this instance: counted when a stream opens, given back once when it closes, however
 * it closes (every opened stream is closed once by the container).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class WorkerStreams implements ChannelSubscriber {

	private final Set<WorkerStream> open = ConcurrentHashMap.newKeySet();

	private final Transactions transactions;

	private final TokenLocks tokens;

	/** Streams open per token (a stream without a token is not counted). */
	private final Map<UUID, Integer> perToken = new ConcurrentHashMap<>();

	private final int maxPerToken;

	/**
	 * Moves on whenever revocations may have gone unheard: a stream whose token was last
	 * found holding at an earlier generation reads it again.
	 */
	private volatile long generation;

	private volatile boolean listening;

	/** System.nanoTime until which what the listener heard is trusted. */
	private volatile long trustedUntil;

	WorkerStreams(Transactions transactions, TokenLocks tokens, WorkerStreamProperties properties) {
		this.transactions = transactions;
		this.tokens = tokens;
		this.maxPerToken = properties.maxStreamsPerToken();
	}

	long generation() {
		return this.generation;
	}

	/** How many streams one token may hold open on this instance. */
	int maxPerToken() {
		return this.maxPerToken;
	}

	/**
	 * Whether the token may open one more stream now: asked at the handshake, so that a
	 * refusal can be a 429; {@link #opened} decides.
	 */
	boolean hasRoom(UUID token) {
		return token == null || this.perToken.getOrDefault(token, 0) < this.maxPerToken;
	}

	/**
	 * Counts the stream in; false when its token already holds as many as it may (the
	 * stream is not counted, and is to be closed).
	 */
	boolean opened(WorkerStream stream) {
		UUID token = stream.token();
		if (token != null) {
			boolean[] admitted = new boolean[1];
			this.perToken.compute(token, (key, count) -> {
				int held = (count != null) ? count : 0;
				admitted[0] = held < this.maxPerToken;
				return admitted[0] ? held + 1 : count;
			});
			if (!admitted[0]) {
				return false;
			}
		}
		this.open.add(stream);
		return true;
	}

	/** The stream closed: its token's count goes down, once, if it was counted. */
	void closed(WorkerStream stream) {
		if (this.open.remove(stream) && stream.token() != null) {
			this.perToken.computeIfPresent(stream.token(), (token, count) -> (count > 1) ? count - 1 : null);
		}
	}

	/** How many streams the token holds open on this instance. */
	int openBy(UUID token) {
		return this.perToken.getOrDefault(token, 0);
	}

	/** How many streams are open on this instance. */
	int size() {
		return this.open.size();
	}

	/**
	 * Whether the stream's token still holds, for its next message: from what the
	 * listener heard while it is trusted, else read again. A stream found revoked is
	 * closed.
	 */
	boolean tokenHolds(WorkerStream stream) {
		if (stream.revoked()) {
			return false;
		}
		UUID token = stream.token();
		if (token == null) {
			return true;
		}
		long seen = this.generation;
		if (trusted() && stream.checkedGeneration() == seen) {
			return true;
		}
		boolean holds = this.transactions.inTransaction(() -> this.tokens.holdUnrevoked(token));
		if (!holds) {
			stream.revoke();
			return false;
		}
		stream.checkedAt(seen);
		return true;
	}

	private boolean trusted() {
		return this.listening && System.nanoTime() - this.trustedUntil < 0;
	}

	@Override
	public List<String> channels() {
		return List.of(TokenMemory.REVOKED_CHANNEL);
	}

	/**
	 * A revoked token's streams are marked revoked now, on the listener's thread, and
	 * closed on threads of their own; after a revocation of every token (or a payload
	 * that is not a token id), every stream reads its token again.
	 */
	@Override
	public void notified(String channel, String payload, Session session) {
		UUID token;
		try {
			token = UUID.fromString(payload);
		}
		catch (IllegalArgumentException ex) {
			this.generation++;
			return;
		}
		for (WorkerStream stream : this.open) {
			if (token.equals(stream.token())) {
				stream.markRevoked();
				Thread.startVirtualThread(() -> stream.close(WorkerStream.TOKEN_REVOKED));
			}
		}
	}

	@Override
	public void listening() {
		// Revocations sent while nobody listened went unheard.
		this.generation++;
		this.trustedUntil = System.nanoTime() + TokenMemory.TRUSTED_FOR.toNanos();
		this.listening = true;
	}

	@Override
	public void roundTrip(long sentAt) {
		this.trustedUntil = sentAt + TokenMemory.TRUSTED_FOR.toNanos();
	}

	@Override
	public void notListening() {
		this.listening = false;
	}

	/**
	 * The instance is shutting down: every stream closes (going away), so that its worker
	 * connects again, to another instance, and graceful shutdown is not held up.
	 */
	@Override
	public void stopping() {
		for (WorkerStream stream : this.open) {
			stream.close(WorkerStream.GOING_AWAY);
		}
	}

}
