package dev.workgraph.lease.ending;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.workgraph.batching.Batcher;
import dev.workgraph.batching.Batchers;
import dev.workgraph.batching.PerRequest;
import dev.workgraph.item.Cancellation;
import dev.workgraph.lease.Fencing;
import dev.workgraph.lease.LeaseAndItem;
import dev.workgraph.lease.LeaseNotFound;
import dev.workgraph.lease.LeaseProperties;
import dev.workgraph.lease.claim.ClaimCommands;
import dev.workgraph.lease.claim.ClaimCommands.NextFor;
import dev.workgraph.lease.claim.ClaimCommands.QueueFilter;
import dev.workgraph.lease.claim.UnansweredClaims;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.problem.Problems;
import dev.workgraph.problem.RequestRejected;
import dev.workgraph.sql.Transactions;
import dev.workgraph.validation.Json;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseView;
import dev.workgraph.view.LeaseViews;
import io.swagger.v3.oas.annotations.media.Schema;
import tools.jackson.databind.JsonNode;

import org.springframework.stereotype.Service;

/**
 * What a worker does with the lease it holds: renew, complete (and claim next), release,
 * cancel. Every mutation is fenced by {@link Fencing}; every multi-step change is one
 * transaction, so a rejected call writes nothing.
 */
@Service
class LeaseCommands implements UnansweredClaims {

	private final Transactions transactions;

	private final ClaimCommands claims;

	private final Fencing fencing;

	private final Cancellation cancellation;

	private final ItemViews items;

	private final LeaseViews leases;

	private final LeaseProperties properties;

	private final LeaseEndings endings;

	/*
	 * Each kind of request alone, or those that arrive together committed together (group
	 * commit, docs/adr/0009): chosen once, by Batchers.
	 */

	private final Batcher<Lane, LeaseEndings.Completing, PerRequest<LeaseAndItem>> completions;

	private final Batcher<QueueFilter, Chaining, PerRequest<Chained>> chained;

	private final Batcher<Lane, LeaseEndings.Releasing, PerRequest<LeaseAndItem>> releases;

	private final Batcher<Lane, LeaseEndings.Renewing, PerRequest<LeaseView>> renewals;

	LeaseCommands(Transactions transactions, ClaimCommands claims, Fencing fencing, Cancellation cancellation,
			ItemViews items, LeaseViews leases, LeaseProperties properties, Batchers batchers, LeaseEndings endings) {
		this.transactions = transactions;
		this.claims = claims;
		this.fencing = fencing;
		this.cancellation = cancellation;
		this.items = items;
		this.leases = leases;
		this.properties = properties;
		this.endings = endings;
		this.completions = batchers.endings((lane, batch) -> endings.completeAll(batch, true),
				(lane, done) -> withItems(done));
		// Alone, a completion and its claim are two transactions, as two calls would be.
		this.chained = batchers.endings(
				batchers.groupCommit() ? this::chainTogether : (filter, batch) -> oneByOne(batch),
				(filter, done) -> withItemsOfChained(done));
		this.releases = batchers.endings((lane, batch) -> endings.releaseAll(batch),
				(lane, done) -> withItems(viewsUnread(done)));
		this.renewals = batchers.endings((lane, batch) -> endings.renewAll(batch), (lane, done) -> done);
	}

	/**
	 * Renewals concurrent with this one are committed together (group commit,
	 * docs/adr/0009), each fenced on its own.
	 */
	LeaseView renew(UUID leaseId, long epoch, Long leaseSeconds) {
		LeaseEndings.Renewing request = new LeaseEndings.Renewing(leaseId, epoch,
				this.properties.leaseSeconds(leaseSeconds));
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
		int seconds = this.properties.leaseSeconds(next.leaseSeconds());
		QueueFilter filter = QueueFilter.of(next.queues());
		LeaseEndings.Completing completing = new LeaseEndings.Completing(leaseId, epoch, Json.textOrNull(result));
		Chained chained = this.chained.submit(filter, new Chaining(completing, seconds)).orThrow();
		LeaseAndItem completed = new LeaseAndItem(chained.ended().lease(), chained.ended().item());
		// Nothing free for it in its transaction is not yet "nothing ready": items locked
		// by claims in flight are released within milliseconds, which the claim's own
		// retries wait for.
		if (!chained.claimed() || (chained.next().isEmpty() && this.claims.anyReady(filter))) {
			return claimingNext(completed, next, seconds);
		}
		this.claims.counted(filter, chained.next());
		return new Completed(completed.lease(), completed.item(), chained.next(), null);
	}

	/** The claim after the completion's commit, in a transaction of its own. */
	private Completed claimingNext(LeaseAndItem completed, NextClaim next, int seconds) {
		try {
			Optional<LeaseAndItem> claimed = this.claims.claim(completed.lease().workerId(), next.queues(),
					(long) seconds);
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
		List<Optional<LeaseAndItem>> claimed = new ArrayList<>();
		List<PerRequest<LeaseEndings.Ended>> ended;
		try {
			ended = this.transactions.inTransaction(() -> {
				claimed.clear();
				List<PerRequest<LeaseEndings.Ended>> done = this.endings
					.completeHere(requests.stream().map(Chaining::completing).toList());
				List<NextFor> asks = new ArrayList<>();
				for (int i = 0; i < requests.size(); i++) {
					if (done.get(i).succeeded()) {
						asks.add(new NextFor(done.get(i).value().lease().workerId(), requests.get(i).leaseSeconds()));
					}
				}
				if (!asks.isEmpty()) {
					claimed.addAll(this.claims.claimBehindSavepoint(filter, asks));
				}
				return done;
			});
		}
		catch (RuntimeException ex) {
			if (Problems.isDatabaseUnavailable(ex) || (requests.size() == 1 && ex instanceof RequestRejected)) {
				return requests.stream().map((request) -> PerRequest.<Chained>failed(ex)).toList();
			}
			return oneByOne(requests);
		}
		Iterator<Optional<LeaseAndItem>> next = this.claims.granted(claimed).iterator();
		return ended.stream()
			.map((done) -> done.map((e) -> next.hasNext() ? new Chained(e, next.next(), true)
					: new Chained(e, Optional.empty(), false)))
			.toList();
	}

	/**
	 * Each completion alone, in a transaction of its own; its claim is left to
	 * {@link #completeAndClaim}.
	 */
	private List<PerRequest<Chained>> oneByOne(List<Chaining> requests) {
		return requests.stream()
			.map((request) -> PerRequest
				.alone(() -> new Chained(this.endings.complete(request.completing()), Optional.empty(), false)))
			.toList();
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
	@Override
	public LeaseAndItem release(UUID leaseId, long epoch, String reason) {
		return release(leaseId, epoch, reason, null);
	}

	/**
	 * As {@link #release(UUID, long, String)}; with {@code retryAfter} (null: none) the
	 * item's notBefore becomes now + retryAfter, in the same transaction.
	 */
	LeaseAndItem release(UUID leaseId, long epoch, String reason, Duration retryAfter) {
		LeaseEndings.Releasing request = new LeaseEndings.Releasing(leaseId, epoch, reason, retryAfter);
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

}
