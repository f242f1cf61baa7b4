package dev.workgraph.lease.stream;

import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Semaphore;

import dev.workgraph.access.Caller;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.security.core.Authentication;
import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.TextMessage;
import org.springframework.web.socket.WebSocketSession;

/**
 * One worker's open stream: who opened it, what its pushed claims take (once it said
 * {@code hello}), how many more leases it can take (its credits), and its way out. Sends
 * from any thread; the session decorator serializes them and closes a stream whose worker
 * stops reading (back-pressure on what the service pushes).
 */
final class WorkerStream {

	private static final Logger log = LoggerFactory.getLogger(WorkerStream.class);

	/** The token was revoked (or no longer holds): the worker should stop. */
	static final CloseStatus TOKEN_REVOKED = new CloseStatus(4401, "unauthenticated: the token was revoked");

	/**
	 * The token already holds as many streams on this instance as it may: for a stream
	 * whose handshake raced past the check with another of its token's (else a 429).
	 */
	static final CloseStatus TOO_MANY_STREAMS = new CloseStatus(4429,
			"too_many_streams: this token already has as many streams open here as it may");

	/** The instance is shutting down: the worker should connect again (to another). */
	static final CloseStatus GOING_AWAY = CloseStatus.GOING_AWAY.withReason("the service is shutting down");

	/**
	 * Messages handled at once per stream: a worker that sends faster than they are done
	 * is no longer read from (TCP back-pressure) until some are done.
	 */
	static final int MAX_IN_FLIGHT = 256;

	/** Most credits a stream may hold (leases it may be pushed without a word). */
	static final int MAX_CREDITS = 10_000;

	private final WebSocketSession session;

	private final Authentication authentication;

	private final UUID token;

	private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);

	/** Guarded by this. */
	private Claiming claiming;

	/** Guarded by this. */
	private int credits;

	/** Guarded by this. */
	private boolean closed;

	/** Set once the token is known to be revoked: nothing more is done for the stream. */
	private volatile boolean revoked;

	/** The revocation generation (see WorkerStreams) at which the token last held. */
	private volatile long checkedGeneration;

	WorkerStream(WebSocketSession session, Authentication authentication, long generation) {
		this.session = session;
		this.authentication = authentication;
		this.token = tokenOf(authentication);
		this.checkedGeneration = generation;
	}

	/** The token of whoever opens a stream, when it can be revoked; else null. */
	static UUID tokenOf(Authentication authentication) {
		return (authentication != null && authentication.getPrincipal() instanceof Caller caller) ? caller.tokenId()
				: null;
	}

	/** Who opened the stream, or null with access control off. */
	Authentication authentication() {
		return this.authentication;
	}

	/** The token that opened the stream, when it can be revoked; else null. */
	UUID token() {
		return this.token;
	}

	String id() {
		return this.session.getId();
	}

	boolean revoked() {
		return this.revoked;
	}

	long checkedGeneration() {
		return this.checkedGeneration;
	}

	void checkedAt(long generation) {
		this.checkedGeneration = generation;
	}

	/** Blocks the reading thread while too many of the stream's messages are in hand. */
	void takeTurn() throws InterruptedException {
		this.inFlight.acquire();
	}

	void turnDone() {
		this.inFlight.release();
	}

	/** Said {@code hello}: from now on, leases are pushed as credits allow. */
	synchronized boolean hello(Claiming settled) {
		if (this.claiming != null) {
			return false;
		}
		this.claiming = settled;
		return true;
	}

	/** What the stream's pushed claims take, null before {@code hello}. */
	synchronized Claiming claiming() {
		return this.claiming;
	}

	/** More (or, negative, fewer) leases the worker can take; never below none. */
	synchronized void credit(int more) {
		this.credits = Math.clamp((long) this.credits + more, 0, MAX_CREDITS);
		notifyAll();
	}

	/**
	 * Waits until the worker can take a lease; how many (at most {@code max}), 0 once
	 * closed.
	 */
	synchronized int awaitCredits(int max) {
		while (!this.closed && this.credits == 0) {
			try {
				wait();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return 0;
			}
		}
		return this.closed ? 0 : Math.min(this.credits, max);
	}

	/** The credits right now, at most {@code max}. */
	synchronized int credits(int max) {
		return this.closed ? 0 : Math.min(this.credits, max);
	}

	/**
	 * Pushes a granted lease, using one credit; false when it cannot be (the stream is
	 * closed or the write failed): its lease is then the caller's to release.
	 */
	boolean push(String json) {
		synchronized (this) {
			if (this.closed || this.revoked) {
				return false;
			}
			this.credits = Math.max(0, this.credits - 1);
		}
		return send(json);
	}

	/** Sends a message; false when the stream is closed or the write failed. */
	boolean send(String json) {
		try {
			this.session.sendMessage(new TextMessage(json));
			return true;
		}
		catch (IOException | RuntimeException ex) {
			// A closed session, a worker that stopped reading (the decorator's limits):
			// the stream is over.
			log.debug("Could not write to worker stream {}: {}", id(), ex.getMessage());
			close(CloseStatus.SESSION_NOT_RELIABLE);
			return false;
		}
	}

	/** The token no longer holds: nothing more is done, and the stream closes. */
	void revoke() {
		markRevoked();
		close(TOKEN_REVOKED);
	}

	/** The token no longer holds: nothing more is done for the stream from now on. */
	void markRevoked() {
		this.revoked = true;
	}

	/** Closes the stream (idempotent); wakes the pusher so that it ends. */
	void close(CloseStatus status) {
		synchronized (this) {
			if (this.closed) {
				return;
			}
			this.closed = true;
			notifyAll();
		}
		try {
			this.session.close(status);
		}
		catch (IOException | RuntimeException ex) {
			log.debug("Closing worker stream {}: {}", id(), ex.getMessage());
		}
	}

	/** The connection closed from the other side, or after {@link #close}. */
	synchronized void closed() {
		this.closed = true;
		notifyAll();
	}

	synchronized boolean isClosed() {
		return this.closed;
	}

	/**
	 * What a stream's pushed claims take: settled from its {@code hello} as a claim's
	 * fields are.
	 *
	 * @param workerId the worker the leases are granted to
	 * @param queues the queues to take from, null for all
	 * @param leaseSeconds the lease length, checked
	 */
	record Claiming(String workerId, List<String> queues, long leaseSeconds) {
	}

}
