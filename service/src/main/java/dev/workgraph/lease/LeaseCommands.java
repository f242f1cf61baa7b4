package dev.workgraph.lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.workgraph.access.TokenLocks;
import dev.workgraph.input.Json;
import dev.workgraph.item.Cancellation;
import dev.workgraph.item.ReadyWaiters;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.model.LeaseView;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.problem.Problems;
import dev.workgraph.problem.RequestRejected;
import dev.workgraph.support.Transactions;
import dev.workgraph.support.Uuid7;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseViews;
import io.swagger.v3.oas.annotations.media.Schema;
import tools.jackson.databind.JsonNode;

import org.springframework.stereotype.Service;

/**
 * What a worker does with a lease: claim, renew, complete, release, cancel. Every
 * mutation after the claim is fenced by {@link Fencing}; every multi-step change is one
 * transaction, so a rejected call writes nothing.
 */
@Service
class LeaseCommands {

	/** Up to about 250 ms of backoff in all (doubling from 1 ms). */
	private static final int EMPTY_CLAIM_RETRIES = 8;

	private static final long EMPTY_CLAIM_BACKOFF_NANOS = 1_000_000L;

	private final Transactions transactions;

	private final Claims claims;

	private final Fencing fencing;

	private final Cancellation cancellation;

	private final ItemViews items;

	private final LeaseViews leases;

	private final LeaseProperties properties;

	private final ContinuityProperties continuity;

	private final LeaseMetrics metrics;

	private final LeaseEndings endings;

	private final ReadyWaiters waiters;

	private final LeaseHolders holders;

	private final TokenLocks tokenLocks;

	/** Null when coalescing is off. */
	private final Coalescer<QueueFilter, Claims.Ask, Optional<Claims.Claimed>, Optional<LeaseAndItem>> coalescer;

	/** Null when group commit is off. */
	private final Coalescer<Lane, LeaseEndings.Completing, PerRequest<LeaseEndings.Ended>, PerRequest<LeaseAndItem>> completions;

	/** Null when group commit is off. */
	private final Coalescer<QueueFilter, Chaining, PerRequest<Chained>, PerRequest<Chained>> chained;

	/** Null when group commit is off. */
	private final Coalescer<Lane, LeaseEndings.Releasing, PerRequest<LeaseView>, PerRequest<LeaseAndItem>> releases;

	/** Null when group commit is off. */
	private final Coalescer<Lane, LeaseEndings.Renewing, PerRequest<LeaseView>, PerRequest<LeaseView>> renewals;

	LeaseCommands(Transactions transactions, Claims claims, Fencing fencing, Cancellation cancellation, ItemViews items,
			LeaseViews leases, LeaseProperties properties, ContinuityProperties continuity,
			CoalescingProperties coalescing, BatchThreads batchThreads, LeaseEndings endings, ReadyWaiters waiters,
			LeaseMetrics metrics, LeaseHolders holders, TokenLocks tokenLocks) {
		this.transactions = transactions;
		this.tokenLocks = tokenLocks;
		this.holders = holders;
		this.claims = claims;
		this.fencing = fencing;
		this.cancellation = cancellation;
		this.items = items;
		this.leases = leases;
		this.properties = properties;
		this.continuity = continuity;
		this.metrics = metrics;
		this.waiters = waiters;
		this.coalescer = coalescing.enabled() ? lanes(coalescing, batchThreads, this::claimBatch, this::withViews)
				: null;
		this.endings = endings;
		boolean groupCommit = coalescing.groupCommit();
		this.completions = groupCommit ? lanes(coalescing, batchThreads,
				(lane, batch) -> endings.completeAll(batch, true), (lane, done) -> withItems(done)) : null;
		this.chained = groupCommit
				? lanes(coalescing, batchThreads, this::chainTogether, (filter, done) -> withItemsOfChained(done))
				: null;
		this.releases = groupCommit ? lanes(coalescing, batchThreads, (lane, batch) -> endings.releaseAll(batch),
				(lane, done) -> withItems(viewsUnread(done))) : null;
		this.renewals = groupCommit
				? lanes(coalescing, batchThreads, (lane, batch) -> endings.renewAll(batch), (lane, done) -> done)
				: null;
	}

	/**
	 * Batches of one kind of request, sized, bounded and threaded as the settings say.
	 */
	private static <K, Q, P, R> Coalescer<K, Q, P, R> lanes(CoalescingProperties coalescing, BatchThreads batchThreads,
			BiFunction<K, List<Q>, List<P>> inLane, BiFunction<K, List<P>, List<R>> afterLane) {
		return new Coalescer<>(inLane, afterLane, coalescing.maxBatch(), coalescing.maxInFlight(), coalescing.maxWait(),
				batchThreads);
	}

	/** The claim without waiting: 204 when nothing is ready. */
	Optional<LeaseAndItem> claim(String workerId, List<String> queues, Long leaseSeconds) {
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
		int seconds = leaseSeconds(leaseSeconds);
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
		claimed.ifPresentOrElse((granted) -> this.metrics.claimGranted(granted.item().queue()),
				() -> this.metrics.claimEmpty(filter.queues()));
		return claimed;
	}

	/**
	 * One statement, sent in one round trip with the setting that keeps it to its generic
	 * plan (see GenericPlans).
	 *
	 * <p>
	 * The statement locks every candidate it looks at (the best item of each requested
	 * queue and the item preferred for this worker) but takes only one of them, so a
	 * concurrent claim that skips them all can come back empty while an item it could
	 * have had stays ready. 204 must mean that nothing is ready, so an empty claim is
	 * retried, after a short backoff, as long as ready items are still visible: they
	 * belong to a claim in flight, which takes one and releases the rest within
	 * milliseconds.
	 */
	private Optional<LeaseAndItem> claimNow(String workerId, UUID token, QueueFilter filter, int seconds) {
		Optional<LeaseAndItem> claimed = claimOnce(workerId, token, filter, seconds);
		for (int retry = 0; claimed.isEmpty() && retry < EMPTY_CLAIM_RETRIES
				&& this.claims.anyReady(filter.queues()); retry++) {
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(EMPTY_CLAIM_BACKOFF_NANOS << retry));
			claimed = claimOnce(workerId, token, filter, seconds);
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
		int seconds = leaseSeconds(leaseSeconds);
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

	private List<LeaseAndItem> claimBatchNow(String workerId, UUID token, QueueFilter filter, int seconds, int limit) {
		List<LeaseAndItem> claimed = claimUpTo(workerId, token, filter, seconds, limit);
		for (int retry = 0; claimed.isEmpty() && retry < EMPTY_CLAIM_RETRIES
				&& this.claims.anyReady(filter.queues()); retry++) {
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(EMPTY_CLAIM_BACKOFF_NANOS << retry));
			claimed = claimUpTo(workerId, token, filter, seconds, limit);
		}
		return claimed;
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
	 * (docs/adr/0005); each still gets its own lease. An ask the batch had no item for
	 * comes back empty, and the retry above treats it like any other empty claim.
	 */
	private Optional<LeaseAndItem> claimOnce(String workerId, UUID token, QueueFilter filter, int seconds) {
		Claims.Ask ask = new Claims.Ask(Uuid7.next(), workerId, seconds);
		if (token != null) {
			// Not coalesced: the token is checked in the claim's own transaction.
			return withViews(filter, this.transactions.inTransaction(() -> {
				holdToken(token);
				return this.claims.claimHere(List.of(ask), filter.queues(), this.continuity.continuityWindow());
			})).getFirst();
		}
		if (this.coalescer != null) {
			return this.coalescer.submit(filter, ask);
		}
		return withViews(filter, claimBatch(filter, List.of(ask))).getFirst();
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
	 * The claims' answers. The claim statements answer the item's view themselves, so
	 * nothing more is read; who holds each new lease is remembered, so the worker's lease
	 * mutations pass their ownership check without a read.
	 */
	private List<Optional<LeaseAndItem>> withViews(QueueFilter filter, List<Optional<Claims.Claimed>> claimed) {
		return claimed.stream().map((claim) -> claim.map((granted) -> {
			this.holders.granted(granted.lease().id(), granted.lease().workerId());
			return new LeaseAndItem(granted.lease(), granted.item());
		})).toList();
	}

	/**
	 * Renewals concurrent with this one are committed together (group commit,
	 * docs/adr/0009), each fenced on its own.
	 */
	LeaseView renew(UUID leaseId, long epoch, Long leaseSeconds) {
		LeaseEndings.Renewing request = new LeaseEndings.Renewing(leaseId, epoch, leaseSeconds(leaseSeconds));
		if (this.renewals == null) {
			return this.endings.renew(request);
		}
		return this.renewals.submit(Lane.RENEW, request).orThrow();
	}

	/**
	 * Completions concurrent with this one are committed together (group commit,
	 * docs/adr/0009), each fenced on its own; their item views are read together after
	 * the commit. A completion that runs alone gets its item's view from the completion
	 * statement itself.
	 */
	LeaseAndItem complete(UUID leaseId, long epoch, JsonNode result) {
		LeaseEndings.Completing request = new LeaseEndings.Completing(leaseId, epoch, Json.textOrNull(result));
		if (this.completions == null) {
			LeaseEndings.Ended completed = this.endings.complete(request);
			return new LeaseAndItem(completed.lease(), completed.item());
		}
		return this.completions.submit(Lane.COMPLETE, request).orThrow();
	}

	/**
	 * The completion and a claim for the worker that held the lease ({@code claimNext}).
	 * With group commit on, the completions with a claim next that arrive together (same
	 * queues) are one transaction: the completions committed together, then their claims
	 * claimed together behind a savepoint, so the claims cannot undo a completion (see
	 * {@link #chainTogether}). The claim's settings are checked before anything is
	 * written; a claim that fails is tried once more after the commit, as
	 * {@code POST /claims} would run it, and if that fails too it is answered beside the
	 * completion, not instead of it, so the worker never takes a completed item for a
	 * failed one.
	 */
	Completed completeAndClaim(UUID leaseId, long epoch, JsonNode result, NextClaim next) {
		int seconds = leaseSeconds(next.leaseSeconds());
		if (this.chained == null) {
			return claimingNext(complete(leaseId, epoch, result), next, seconds);
		}
		QueueFilter filter = QueueFilter.of(next.queues());
		LeaseEndings.Completing completing = new LeaseEndings.Completing(leaseId, epoch, Json.textOrNull(result));
		Chained chained = this.chained.submit(filter, new Chaining(completing, seconds)).orThrow();
		LeaseAndItem completed = new LeaseAndItem(chained.ended().lease(), chained.ended().item());
		// Nothing free for it in its transaction is not yet "nothing ready": items locked
		// by claims in flight are released within milliseconds, which the claim's own
		// retries wait for.
		if (!chained.claimed() || (chained.next().isEmpty() && this.claims.anyReady(filter.queues()))) {
			return claimingNext(completed, next, seconds);
		}
		chained.next()
			.ifPresentOrElse((granted) -> this.metrics.claimGranted(granted.item().queue()),
					() -> this.metrics.claimEmpty(filter.queues()));
		return new Completed(completed.lease(), completed.item(), chained.next(), null);
	}

	/** The claim after the completion's commit, in a transaction of its own. */
	private Completed claimingNext(LeaseAndItem completed, NextClaim next, int seconds) {
		try {
			Optional<LeaseAndItem> claimed = claim(completed.lease().workerId(), next.queues(), (long) seconds);
			return new Completed(completed.lease(), completed.item(), claimed, null);
		}
		catch (RuntimeException ex) {
			return new Completed(completed.lease(), completed.item(), Optional.empty(), Problems.of(ex));
		}
	}

	/**
	 * Completions with a claim next, in one transaction: the completions as group commit
	 * runs them, then one coalesced claim for the workers whose completion went through,
	 * behind a savepoint. One commit and one queue instead of two per item; a claim that
	 * fails rolls back to the savepoint and leaves the completions to commit. When the
	 * completions cannot run together (see {@link LeaseEndings#completeHere}), or the
	 * transaction fails for any reason but an unreachable database, each completion is
	 * run alone and its claim left to {@link #completeAndClaim}.
	 */
	private List<PerRequest<Chained>> chainTogether(QueueFilter filter, List<Chaining> requests) {
		List<Optional<Claims.Claimed>> claimed = new ArrayList<>();
		List<PerRequest<LeaseEndings.Ended>> ended;
		try {
			ended = this.transactions.inTransaction(() -> {
				claimed.clear();
				List<PerRequest<LeaseEndings.Ended>> done = this.endings
					.completeHere(requests.stream().map(Chaining::completing).toList());
				List<Claims.Ask> asks = new ArrayList<>();
				for (int i = 0; i < requests.size(); i++) {
					if (done.get(i).succeeded()) {
						asks.add(new Claims.Ask(Uuid7.next(), done.get(i).value().lease().workerId(),
								requests.get(i).leaseSeconds()));
					}
				}
				if (!asks.isEmpty()) {
					claimed.addAll(claimBehindSavepoint(filter, asks));
				}
				return done;
			});
		}
		catch (RuntimeException ex) {
			if (Problems.isDatabaseUnavailable(ex) || (requests.size() == 1 && ex instanceof RequestRejected)) {
				return requests.stream().map((request) -> PerRequest.<Chained>failed(ex)).toList();
			}
			return requests.stream()
				.map((request) -> PerRequest
					.alone(() -> new Chained(this.endings.complete(request.completing()), Optional.empty(), false)))
				.toList();
		}
		Iterator<Optional<LeaseAndItem>> next = withViews(filter, claimed).iterator();
		return ended.stream()
			.map((done) -> done.map((e) -> next.hasNext() ? new Chained(e, next.next(), true)
					: new Chained(e, Optional.empty(), false)))
			.toList();
	}

	/**
	 * The claims, or none of them when they failed: what they wrote is rolled back to the
	 * savepoint, and {@link #completeAndClaim} tries each again after the commit.
	 */
	private List<Optional<Claims.Claimed>> claimBehindSavepoint(QueueFilter filter, List<Claims.Ask> asks) {
		try {
			return this.transactions
				.inSavepoint(() -> this.claims.claimHere(asks, filter.queues(), this.continuity.continuityWindow()));
		}
		catch (RuntimeException ex) {
			// A lost connection fails the commit too, and with it the whole request.
			return List.of();
		}
	}

	/**
	 * The chained answers with their completed items' views, which the completions read
	 * themselves (see {@link #withItems}).
	 */
	private List<PerRequest<Chained>> withItemsOfChained(List<PerRequest<Chained>> chained) {
		List<PerRequest<LeaseAndItem>> completed = withItems(
				chained.stream().map((done) -> done.map(Chained::ended)).toList());
		List<PerRequest<Chained>> answers = new ArrayList<>(chained.size());
		for (int i = 0; i < chained.size(); i++) {
			PerRequest<Chained> done = chained.get(i);
			answers.add(completed.get(i)
				.map((c) -> new Chained(new LeaseEndings.Ended(c.lease(), c.item()), done.value().next(),
						done.value().claimed())));
		}
		return answers;
	}

	/**
	 * {@code POST /completions}: each entry fenced and answered on its own, committed
	 * together. The answer is the lease alone, so no item view is read.
	 */
	List<PerRequest<LeaseView>> completeAll(List<LeaseEndings.Completing> requests) {
		return this.endings.completeAll(requests, false)
			.stream()
			.map((done) -> done.map(LeaseEndings.Ended::lease))
			.toList();
	}

	/**
	 * The answers: each ended lease with its item's view, read together after the commit
	 * where the ending did not read it itself (releases; completions read theirs).
	 */
	private List<PerRequest<LeaseAndItem>> withItems(List<PerRequest<LeaseEndings.Ended>> ended) {
		Map<UUID, ItemView> byId = new HashMap<>();
		this.items
			.load(ended.stream()
				.filter(PerRequest::succeeded)
				.map(PerRequest::value)
				.filter((done) -> done.item() == null)
				.map((done) -> done.lease().itemId())
				.distinct()
				.toList())
			.forEach((view) -> byId.put(view.id(), view));
		return ended.stream()
			.map((done) -> done
				.map((e) -> new LeaseAndItem(e.lease(), (e.item() != null) ? e.item() : byId.get(e.lease().itemId()))))
			.toList();
	}

	private static List<PerRequest<LeaseEndings.Ended>> viewsUnread(List<PerRequest<LeaseView>> ended) {
		return ended.stream().map((done) -> done.map((lease) -> new LeaseEndings.Ended(lease, null))).toList();
	}

	/**
	 * Releases concurrent with this one are committed together (group commit,
	 * docs/adr/0009), each fenced on its own.
	 */
	LeaseAndItem release(UUID leaseId, long epoch, String reason) {
		LeaseEndings.Releasing request = new LeaseEndings.Releasing(leaseId, epoch, reason);
		if (this.releases == null) {
			return withItem(this.endings.release(request));
		}
		return this.releases.submit(Lane.RELEASE, request).orThrow();
	}

	LeaseAndItem cancel(UUID leaseId, long epoch, String reason) {
		LeaseView lease = this.transactions.inTransaction(() -> {
			LeaseView ended = this.fencing.lockAndEnd(leaseId, epoch, LeaseOutcome.CANCELLED, reason);
			this.cancellation.cancelSubtree(ended.itemId(), reason);
			return ended;
		});
		return withItem(lease);
	}

	LeaseView lease(UUID leaseId) {
		return this.leases.find(leaseId).orElseThrow(() -> new LeaseNotFound(leaseId));
	}

	LeaseAndItem withItem(LeaseView lease) {
		return new LeaseAndItem(lease, item(lease.itemId()));
	}

	ItemView item(UUID itemId) {
		return this.items.find(itemId).orElseThrow();
	}

	/**
	 * A {@code Long} so that any length a client may plausibly send is judged against the
	 * configured bounds, not refused for not fitting an {@code int}.
	 */
	private int leaseSeconds(Long requested) {
		if (requested == null) {
			return this.properties.defaultSeconds();
		}
		if (requested < 1 || requested > this.properties.maxSeconds()) {
			throw new InvalidRequest("leaseSeconds", "must be between 1 and " + this.properties.maxSeconds());
		}
		return requested.intValue();
	}

	/**
	 * A lease with the item it is (or was) for, as the claim and lease-ending endpoints
	 * answer.
	 */
	record LeaseAndItem(LeaseView lease, ItemView item) {
	}

	/**
	 * The answer of {@code POST /leases/{id}/complete}: the ended lease and its item and,
	 * when {@code claimNext} was asked, {@code next}. {@code next} is null in Java when
	 * it was not asked (the member is left out) and empty when nothing was ready (written
	 * as null); {@code nextProblem} is there only when the claim failed after the
	 * completion was committed.
	 */
	record Completed(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) LeaseView lease,
			@Schema(requiredMode = Schema.RequiredMode.REQUIRED) ItemView item,
			@Schema(description = "The next claim, when `claimNext` was asked: null when nothing was ready or the claim failed; left out when not asked.") @JsonInclude(JsonInclude.Include.NON_NULL) Optional<LeaseAndItem> next,
			@Schema(description = "Only when the next claim failed after the completion was committed: the problem that claim would have answered.",
					ref = "#/components/schemas/Problem") @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Object> nextProblem) {

		static Completed alone(LeaseAndItem completed) {
			return new Completed(completed.lease(), completed.item(), null, null);
		}

	}

	/** A completion with a claim next: the claim's lease length, checked. */
	private record Chaining(LeaseEndings.Completing completing, int leaseSeconds) {
	}

	/**
	 * A completion done, with its item's view where read, and the claim made in its
	 * transaction: {@code claimed} false when none was made (it failed, or the completion
	 * ran alone), else {@code next} is what it found.
	 */
	private record Chained(LeaseEndings.Ended ended, Optional<LeaseAndItem> next, boolean claimed) {
	}

	/** The lanes of group commit: requests of one lane are committed together. */
	private enum Lane {

		COMPLETE, RELEASE, RENEW

	}

	/**
	 * The queues a claim may take from (null: all), as a set: claims coalesce when their
	 * filters are equal.
	 */
	record QueueFilter(List<String> queues) {

		static QueueFilter of(List<String> queues) {
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
