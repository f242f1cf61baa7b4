package dev.workgraph.lease.stream;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.workgraph.item.ReadyWaiters;
import dev.workgraph.lease.LeaseAndItem;
import dev.workgraph.lease.claim.ClaimCommands;
import dev.workgraph.lease.claim.UnansweredClaims;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.stereotype.Component;

/**
 * Pushes leases to a stream as its credits allow: claims as many as it has credits for
 * (up to a batch's limit) in one transaction, and when nothing is ready waits among the
 * long-poll claims of the same queues (docs/adr/0008), woken when an item becomes ready.
 * A lease that cannot be delivered (the stream closed meanwhile) is released at once, as
 * a waiting claim's is when its client is gone.
 */
@Component
class StreamGrants {

	private static final Logger log = LoggerFactory.getLogger(StreamGrants.class);

	/**
	 * The reason recorded on a lease granted for a stream that closed before it was sent.
	 */
	static final String STREAM_GONE = "the worker stream closed before the lease was delivered";

	/** At most this many leases in one grant, as {@code POST /claims/batch}. */
	static final int MAX_BATCH = 500;

	/** A wait ends and begins again after this long (checking credits in between). */
	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final long PAUSE_AFTER_FAILURE_MILLIS = 1_000;

	private final ClaimCommands claims;

	private final ReadyWaiters waiters;

	private final UnansweredClaims unanswered;

	private final JsonMapper json;

	StreamGrants(ClaimCommands claims, ReadyWaiters waiters, UnansweredClaims unanswered, JsonMapper json) {
		this.claims = claims;
		this.waiters = waiters;
		this.unanswered = unanswered;
		this.json = json;
	}

	/** Starts pushing leases to the stream, on a thread of its own, until it closes. */
	void start(WorkerStream stream, WorkerStream.Claiming claiming) {
		Thread.ofVirtual().name("worker-stream-" + stream.id()).start(() -> push(stream, claiming));
	}

	/** Ends the stream's wait, if it waits: it closed. */
	void stop(WorkerStream stream) {
		this.waiters.endWaitsOf(stream);
	}

	private void push(WorkerStream stream, WorkerStream.Claiming claiming) {
		int wanted;
		while ((wanted = stream.awaitCredits(MAX_BATCH)) > 0) {
			List<LeaseAndItem> granted;
			try {
				granted = claim(stream, claiming, wanted);
				if (granted.isEmpty()) {
					granted = this.waiters
						.awaitReady(claiming.queues(), WAIT, stream,
								() -> Optional.of(claim(stream, claiming, stream.credits(MAX_BATCH)))
									.filter((claimed) -> !claimed.isEmpty()))
						.orElse(List.of());
				}
			}
			catch (RuntimeException ex) {
				// The database is away, say: the stream waits and tries again.
				log.debug("Claiming for worker stream {} failed: {}", stream.id(), ex.getMessage());
				pause();
				continue;
			}
			deliver(stream, granted);
		}
	}

	private List<LeaseAndItem> claim(WorkerStream stream, WorkerStream.Claiming claiming, int limit) {
		if (limit <= 0 || stream.revoked() || stream.isClosed()) {
			return List.of();
		}
		return this.claims.claimForStream(claiming.workerId(), stream.token(), claiming.queues(),
				claiming.leaseSeconds(), limit);
	}

	private void deliver(WorkerStream stream, List<LeaseAndItem> granted) {
		for (LeaseAndItem lease : granted) {
			String message = this.json.writeValueAsString(new Pushed("lease", lease.lease(), lease.item()));
			if (!stream.push(message)) {
				release(lease);
			}
		}
	}

	private void release(LeaseAndItem granted) {
		try {
			this.unanswered.release(granted.lease().id(), granted.lease().epoch(), STREAM_GONE);
		}
		catch (RuntimeException ex) {
			// Already ended (expired, cancelled): the item is free or was meant to be.
			log.debug("Could not release lease {} of a closed stream", granted.lease().id(), ex);
		}
	}

	private static void pause() {
		try {
			Thread.sleep(PAUSE_AFTER_FAILURE_MILLIS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A lease pushed to the worker: as {@code POST /claims} answers it, with its type.
	 */
	record Pushed(String type, Object lease, Object item) {
	}

}
