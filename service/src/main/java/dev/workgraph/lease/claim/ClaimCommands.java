package dev.workgraph.lease.claim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.workgraph.access.TokenLocks;
import dev.workgraph.batching.Batcher;
import dev.workgraph.batching.Batchers;
import dev.workgraph.item.ReadyWaiters;
import dev.workgraph.lease.LeaseAndItem;
import dev.workgraph.lease.LeaseHolders;
import dev.workgraph.lease.LeaseMetrics;
import dev.workgraph.lease.LeaseProperties;
import dev.workgraph.sql.Transactions;
import dev.workgraph.sql.Uuid7;

import org.springframework.stereotype.Service;

/**
 * Claims: one lease on the next ready item ({@code POST /claims}), up to a limit of them
 * ({@code POST /claims/batch}), and the claims made in a completion's transaction
 * ({@code claimNext}). Concurrent claims with the same queues filter are served by one
 * batch (docs/adr/0005); each still gets its own lease.
 */
@Service
public class ClaimCommands {

	/** Up to about 250 ms of backoff in all (doubling from 1 ms). */
	private static final int EMPTY_CLAIM_RETRIES = 8;

	private static final long EMPTY_CLAIM_BACKOFF_NANOS = 1_000_000L;

	private final Transactions transactions;

	private final Claims claims;

	private final LeaseProperties properties;

	private final ContinuityProperties continuity;

	private final LeaseMetrics metrics;

	private final ReadyWaiters waiters;

	private final LeaseHolders holders;

	private final TokenLocks tokenLocks;

	/** Claims alone, or concurrent ones in one batch (coalescing, docs/adr/0005). */
	private final Batcher<QueueFilter, Claims.Ask, Optional<LeaseAndItem>> batcher;

	ClaimCommands(Transactions transactions, Claims claims, LeaseProperties properties, ContinuityProperties continuity,
			Batchers batchers, ReadyWaiters waiters, LeaseMetrics metrics, LeaseHolders holders,
			TokenLocks tokenLocks) {
		this.transactions = transactions;
		this.tokenLocks = tokenLocks;
		this.claims = claims;
		this.properties = properties;
		this.continuity = continuity;
		this.metrics = metrics;
		this.waiters = waiters;
		this.holders = holders;
		this.batcher = batchers.claims(this::claimBatch, this::withViews);
	}

	/** The claim without waiting: 204 when nothing is ready. */
	public Optional<LeaseAndItem> claim(String workerId, List<String> queues, Long leaseSeconds) {
		return claim(workerId, queues, leaseSeconds, 0);
	}

	/**
	 * The claim, waiting up to {@code waitSeconds} for an item to become ready when none
	 * is (docs/adr/0008). The wait holds no database connection; the waiters of the same
	 * queues claim in arrival order.
	 */
	Optional<LeaseAndItem> claim(String workerId, List<String> queues, Long leaseSeconds, int waitSeconds) {
		return claim(workerId, null, queues, leaseSeconds, waitSeconds);
	}

	/**
	 * {@link #claim(String, List, Long, int)} for a request that presented this token
	 * (null: none, or one that cannot be revoked): the wait ends, empty, when the token
	 * is revoked, and each attempt grants only while the token holds.
	 */
	Optional<LeaseAndItem> claim(String workerId, UUID token, List<String> queues, Long leaseSeconds, int waitSeconds) {
		int seconds = this.properties.leaseSeconds(leaseSeconds);
		QueueFilter filter = QueueFilter.of(queues);
		Optional<LeaseAndItem> claimed;
		try {
			claimed = (waitSeconds > 0)
					? this.waiters.awaitReady(filter.queues(), Duration.ofSeconds(waitSeconds), token,
							() -> claimNow(workerId, token, filter, seconds))
					: claimNow(workerId, null, filter, seconds);
		}
		catch (TokenRevokedWhileWaiting ex) {
			this.waiters.endWaitsOf(token);
			claimed = Optional.empty();
		}
		// Counted once per answer, however many attempts a waiting claim made.
		counted(filter, claimed);
		return claimed;
	}

	/**
	 * One statement, sent in one round trip with the setting that keeps it to its generic
	 * plan (see GenericPlans).
	 */
	private Optional<LeaseAndItem> claimNow(String workerId, UUID token, QueueFilter filter, int seconds) {
		return retriedWhileEmpty(filter, () -> claimOnce(workerId, token, filter, seconds), Optional::isEmpty);
	}

	/**
	 * The statement locks every candidate it looks at (the best item of each requested
	 * queue and the item preferred for this worker) but takes only one of them, so a
	 * concurrent claim that skips them all can come back empty while an item it could
	 * have had stays ready. 204 must mean that nothing is ready, so an empty claim is
	 * retried, after a short backoff, as long as ready items are still visible: they
	 * belong to a claim in flight, which takes one and releases the rest within
	 * milliseconds.
	 */
	private <T> T retriedWhileEmpty(QueueFilter filter, Supplier<T> claim, Predicate<T> empty) {
		T claimed = claim.get();
		for (int retry = 0; empty.test(claimed) && retry < EMPTY_CLAIM_RETRIES
				&& this.claims.anyReady(filter.queues()); retry++) {
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(EMPTY_CLAIM_BACKOFF_NANOS << retry));
			claimed = claim.get();
		}
		return claimed;
	}

	/**
	 * {@code POST /claims/batch}: up to {@code limit} items for one worker, each under
	 * its own lease, in claim order, in one transaction (the coalesced claims'
	 * statements); empty only when nothing is ready, as {@link #claim}, after waiting up
	 * to {@code waitSeconds} among the single claims' waiters of the same queues.
	 */
	List<LeaseAndItem> claimBatch(String workerId, List<String> queues, Long leaseSeconds, int limit, int waitSeconds) {
		return claimBatch(workerId, null, queues, leaseSeconds, limit, waitSeconds);
	}

	/**
	 * {@link #claimBatch(String, List, Long, int, int)} for a request that presented this
	 * token, as {@link #claim(String, UUID, List, Long, int)}.
	 */
	List<LeaseAndItem> claimBatch(String workerId, UUID token, List<String> queues, Long leaseSeconds, int limit,
			int waitSeconds) {
		int seconds = this.properties.leaseSeconds(leaseSeconds);
		QueueFilter filter = QueueFilter.of(queues);
		List<LeaseAndItem> claimed;
		try {
			claimed = (waitSeconds > 0) ? this.waiters
				.awaitReady(filter.queues(), Duration.ofSeconds(waitSeconds), token,
						() -> Optional.of(claimBatchNow(workerId, token, filter, seconds, limit))
							.filter((c) -> !c.isEmpty()))
				.orElse(List.of()) : claimBatchNow(workerId, null, filter, seconds, limit);
		}
		catch (TokenRevokedWhileWaiting ex) {
			this.waiters.endWaitsOf(token);
			claimed = List.of();
		}
		if (claimed.isEmpty()) {
			this.metrics.claimEmpty(filter.queues());
		}
		claimed.forEach((granted) -> this.metrics.claimGranted(granted.item().queue()));
		return claimed;
	}

	/**
	 * For the worker stream (docs/adr/0031): up to {@code limit} claims now, in one
	 * transaction, without waiting (the stream waits among the long-poll claims itself).
	 * With a token, each attempt grants only while the token holds, as a waiting claim's
	 * attempt does: the stream was authenticated when it opened, maybe hours ago. Empty
	 * when nothing is ready, and when the token was revoked.
	 */
	public List<LeaseAndItem> claimForStream(String workerId, UUID token, List<String> queues, Long leaseSeconds,
			int limit) {
		int seconds = this.properties.leaseSeconds(leaseSeconds);
		QueueFilter filter = QueueFilter.of(queues);
		List<LeaseAndItem> claimed;
		try {
			claimed = claimBatchNow(workerId, token, filter, seconds, limit);
		}
		catch (TokenRevokedWhileWaiting ex) {
			return List.of();
		}
		claimed.forEach((granted) -> this.metrics.claimGranted(granted.item().queue()));
		return claimed;
	}

	private List<LeaseAndItem> claimBatchNow(String workerId, UUID token, QueueFilter filter, int seconds, int limit) {
		return retriedWhileEmpty(filter, () -> claimUpTo(workerId, token, filter, seconds, limit), List::isEmpty);
	}

	private List<LeaseAndItem> claimUpTo(String workerId, UUID token, QueueFilter filter, int seconds, int limit) {
		List<Claims.Ask> asks = new ArrayList<>(limit);
		for (int i = 0; i < limit; i++) {
			asks.add(new Claims.Ask(Uuid7.next(), workerId, seconds));
		}
		List<Optional<Claims.Claimed>> claimed = this.transactions.inTransaction(() -> {
			holdToken(token);
			return this.claims.claimBatch(asks, filter.queues(), this.continuity.continuityWindow());
		});
		return withViews(filter, claimed).stream().flatMap(Optional::stream).toList();
	}

	/**
	 * In a waiting claim's transaction, before it grants anything: the token still holds
	 * (and stays so until the grant commits), or the claim ends. The token was checked
	 * when the request came in, possibly a minute ago; a revocation since then must not
	 * let it take a single item.
	 */
	private void holdToken(UUID token) {
		if (token != null && !this.tokenLocks.holdUnrevoked(token)) {
			throw new TokenRevokedWhileWaiting();
		}
	}

	/**
	 * Claims concurrent with this one (same queues filter) are served by one batch
	 * (docs/adr/0005) when coalescing is on; each still gets its own lease. An ask the
	 * batch had no item for comes back empty, and the retry above treats it like any
	 * other empty claim.
	 */
	private Optional<LeaseAndItem> claimOnce(String workerId, UUID token, QueueFilter filter, int seconds) {
		Claims.Ask ask = new Claims.Ask(Uuid7.next(), workerId, seconds);
		if (token != null) {
			// Not batched: the token is checked in the claim's own transaction.
			return withViews(filter, this.transactions.inTransaction(() -> {
				holdToken(token);
				return this.claims.claimHere(List.of(ask), filter.queues(), this.continuity.continuityWindow());
			})).getFirst();
		}
		return this.batcher.submit(filter, ask);
	}

	/**
	 * A lone claim is the one-statement claim; several are one transaction of two
	 * statements.
	 */
	private List<Optional<Claims.Claimed>> claimBatch(QueueFilter filter, List<Claims.Ask> asks) {
		if (asks.size() == 1) {
			Claims.Ask ask = asks.getFirst();
			return List.of(this.claims.claimNextReady(ask.leaseId(), ask.workerId(), filter.queues(),
					ask.leaseSeconds(), this.continuity.continuityWindow()));
		}
		return this.transactions
			.inTransaction(() -> this.claims.claimBatch(asks, filter.queues(), this.continuity.continuityWindow()));
	}

	/**
	 * The claims of workers whose completion went through, in the caller's transaction
	 * behind a savepoint, or none of them when they failed: what they wrote is rolled
	 * back to the savepoint, and the caller tries each again after the commit. Who holds
	 * each lease is remembered only by {@link #granted}, once the transaction committed.
	 */
	public List<Optional<LeaseAndItem>> claimBehindSavepoint(QueueFilter filter, List<NextFor> nextFor) {
		List<Claims.Ask> asks = nextFor.stream()
			.map((next) -> new Claims.Ask(Uuid7.next(), next.workerId(), next.leaseSeconds()))
			.toList();
		try {
			return this.transactions
				.inSavepoint(() -> this.claims.claimHere(asks, filter.queues(), this.continuity.continuityWindow()))
				.stream()
				.map((claim) -> claim.map((granted) -> new LeaseAndItem(granted.lease(), granted.item())))
				.toList();
		}
		catch (RuntimeException ex) {
			// A lost connection fails the commit too, and with it the whole request.
			return List.of();
		}
	}

	/**
	 * The claims' answers. The claim statements answer the item's view themselves, so
	 * nothing more is read; who holds each new lease is remembered, so the worker's lease
	 * mutations pass their ownership check without a read.
	 */
	private List<Optional<LeaseAndItem>> withViews(QueueFilter filter, List<Optional<Claims.Claimed>> claimed) {
		return granted(claimed.stream()
			.map((claim) -> claim.map((granted) -> new LeaseAndItem(granted.lease(), granted.item())))
			.toList());
	}

	/** Claims committed: who holds each new lease is remembered. */
	public List<Optional<LeaseAndItem>> granted(List<Optional<LeaseAndItem>> claimed) {
		claimed.forEach((claim) -> claim
			.ifPresent((granted) -> this.holders.granted(granted.lease().id(), granted.lease().workerId())));
		return claimed;
	}

	/**
	 * Whether ready items are visible in the filter's queues: an empty claim made while
	 * they are lost a race with a claim in flight, not found nothing.
	 */
	public boolean anyReady(QueueFilter filter) {
		return this.claims.anyReady(filter.queues());
	}

	/** A claim's answer counted, granted or empty. */
	public void counted(QueueFilter filter, Optional<LeaseAndItem> claimed) {
		claimed.ifPresentOrElse((granted) -> this.metrics.claimGranted(granted.item().queue()),
				() -> this.metrics.claimEmpty(filter.queues()));
	}

	/** A claim asked for after a completion: the worker and its lease length, checked. */
	public record NextFor(String workerId, int leaseSeconds) {
	}

	/**
	 * The queues a claim may take from (null: all), as a set: claims coalesce when their
	 * filters are equal.
	 */
	public record QueueFilter(List<String> queues) {

		public static QueueFilter of(List<String> queues) {
			return new QueueFilter((queues != null) ? queues.stream().distinct().sorted().toList() : null);
		}

	}

	/** Ends a waiting claim whose token was revoked: it answers empty. */
	private static final class TokenRevokedWhileWaiting extends RuntimeException {

		TokenRevokedWhileWaiting() {
			super("The token of a waiting claim was revoked", null, false, false);
		}

	}

}
