package dev.workgraph.access;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.workgraph.notification.ChannelSubscriber;
import dev.workgraph.sql.Transactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * Makes a revocation hold everywhere before {@code DELETE /tokens/{id}} answers: the
 * revocation is announced on {@value TokenMemory#REVOKED_CHANNEL} when it commits; this
 * instance forgets the token at once, and waits until every other instance's registered
 * listener session has confirmed that its {@link TokenMemory} forgot it: by a
 * notification on {@value #FORGOTTEN_CHANNEL}, or by a round trip recorded in the
 * database after the revocation (so a revoker whose own listener is down still sees the
 * others confirm), or by being gone (its instance then stops trusting its memory). An
 * instance that stays silent past the deadline (hung, cut off) has its listener session
 * terminated, and the answer waits out {@link TokenMemory#TRUSTED_FOR} since the
 * revocation: by then even an instance that cannot learn of either has stopped trusting
 * what it remembers.
 *
 * <p>
 * Why this is enough: the sessions are looked up after the revocation committed; a
 * session that registers later clears its instance's memory after registering, so it can
 * only have read the token as revoked.
 */
@Component
public class Revocations implements ChannelSubscriber {

	/** Confirmations: the payload is {@code <listener pid>:<token id>}. */
	public static final String FORGOTTEN_CHANNEL = "work_graph_token_forgotten";

	private static final Logger log = LoggerFactory.getLogger(Revocations.class);

	private static final Duration DEADLINE = Duration.ofSeconds(5);

	/** How often sessions that have not confirmed are checked for being gone. */
	private static final long RECHECK_MILLIS = 100;

	private final Tokens tokens;

	private final Transactions transactions;

	private final TokenMemory memory;

	/**
	 * Revocations waiting for confirmations (a handful at most; two revocations of the
	 * same token each wait for their own).
	 */
	private final Set<Pending> pending = ConcurrentHashMap.newKeySet();

	Revocations(Tokens tokens, Transactions transactions, TokenMemory memory) {
		this.tokens = tokens;
		this.transactions = transactions;
		this.memory = memory;
	}

	/** A confirmation heard on {@value #FORGOTTEN_CHANNEL}. */
	public void forgotten(String payload) {
		int colon = payload.indexOf(':');
		if (colon < 0) {
			return;
		}
		try {
			UUID tokenId = UUID.fromString(payload.substring(colon + 1));
			int pid = Integer.parseInt(payload.substring(0, colon));
			for (Pending waiting : this.pending) {
				if (waiting.tokenId.equals(tokenId)) {
					waiting.confirmed(pid);
				}
			}
		}
		catch (IllegalArgumentException ex) {
			log.debug("Ignoring a malformed confirmation '{}'", payload);
		}
	}

	/**
	 * After the revocation of {@code tokenId} committed: announces it and returns once
	 * every instance that may remember the token has forgotten it.
	 */
	void announceAndAwait(UUID tokenId) {
		Pending waiting = new Pending(tokenId);
		this.pending.add(waiting);
		try {
			this.transactions.inTransaction(() -> this.tokens.announceRevocation(tokenId));
			long announcedAt = System.nanoTime();
			// Committed: this instance forgets at once, whatever its listener is up to.
			this.memory.revoked(tokenId.toString());
			Tokens.Listeners listeners = this.tokens.listeners();
			waiting.expect(listeners.pids());
			waiting.confirmed(this.memory.listenerPid());
			long deadline = announcedAt + DEADLINE.toNanos();
			while (!waiting.allConfirmed()) {
				if (System.nanoTime() > deadline) {
					Set<Integer> silent = waiting.unconfirmed();
					log.warn(
							"Listener sessions {} did not confirm the revocation of token {} within {}; "
									+ "terminating them so that their instances stop trusting what they remember",
							silent, tokenId, DEADLINE);
					try {
						this.tokens.terminateListeners(silent);
					}
					catch (DataAccessException ex) {
						// Not allowed (another role's sessions): said loudly, the
						// revocation stands.
						log.error("Could not terminate listener sessions {}: instances may accept token {} "
								+ "for up to {}", silent, tokenId, TokenMemory.TRUSTED_FOR, ex);
					}
					// A session cut off from the database learns of neither: its instance
					// stops trusting its memory at the latest this long after its last
					// round trip, which was before the revocation.
					waitUntil(announcedAt + TokenMemory.TRUSTED_FOR.toNanos());
					return;
				}
				if (!waiting.awaitConfirmations(RECHECK_MILLIS)) {
					// Judged on what the database knows too: an instance whose round
					// trips went on past the revocation has forgotten the token, even
					// when this instance's listener cannot hear it say so.
					waiting.settled(this.tokens.listenersSettled(waiting.unconfirmed(), listeners.at()));
				}
			}
		}
		finally {
			this.pending.remove(waiting);
		}
	}

	private static void waitUntil(long nanoTime) {
		long left;
		while ((left = nanoTime - System.nanoTime()) > 0) {
			try {
				TimeUnit.NANOSECONDS.sleep(left);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting out a revocation's bound", ex);
			}
		}
	}

	/** The confirmations one revocation waits for. */
	private static final class Pending {

		private final UUID tokenId;

		private final Set<Integer> confirmed = new HashSet<>();

		private Set<Integer> expected;

		Pending(UUID tokenId) {
			this.tokenId = tokenId;
		}

		synchronized void confirmed(int pid) {
			this.confirmed.add(pid);
			notifyAll();
		}

		synchronized void expect(Set<Integer> pids) {
			this.expected = new HashSet<>(pids);
		}

		synchronized void settled(Set<Integer> pids) {
			this.expected.removeAll(pids);
		}

		synchronized boolean allConfirmed() {
			return this.confirmed.containsAll(this.expected);
		}

		synchronized Set<Integer> unconfirmed() {
			Set<Integer> unconfirmed = new HashSet<>(this.expected);
			unconfirmed.removeAll(this.confirmed);
			return unconfirmed;
		}

		/** Waits up to {@code millis} for all confirmations; false if they are not in. */
		synchronized boolean awaitConfirmations(long millis) {
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
			try {
				while (!allConfirmed()) {
					long left = deadline - System.nanoTime();
					if (left <= 0) {
						return false;
					}
					TimeUnit.NANOSECONDS.timedWait(this, left);
				}
				return true;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for a revocation to be confirmed", ex);
			}
		}

	}

	@Override
	public List<String> channels() {
		return List.of(FORGOTTEN_CHANNEL);
	}

	@Override
	public void notified(String channel, String payload, Session session) {
		forgotten(payload);
	}

}
