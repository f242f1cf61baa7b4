package dev.workgraph.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.workgraph.chaos.History.Violation;
import dev.workgraph.chaos.ServerHistory.AttentionRow;
import dev.workgraph.chaos.ServerHistory.CheckpointRow;
import dev.workgraph.chaos.ServerHistory.EventRow;
import dev.workgraph.chaos.ServerHistory.ItemRow;
import dev.workgraph.chaos.ServerHistory.LeaseRow;
import dev.workgraph.chaos.ServerHistory.Operations;
import dev.workgraph.chaos.ServerHistory.WaitRow;

/**
 * Checks a drained run: the client's record of every request and answer against the
 * database's own history. Each check is named after the invariant it proves:
 * {@code 1-no-stale-write}, {@code 2-epochs-and-no-overlap}, {@code 3-one-outcome},
 * {@code 4-drained-nothing-lost}, {@code 5-readiness}, {@code 6-no-5xx} (found while
 * recording), {@code 7-capped-queue-within-cap}, and for what workers do besides claiming
 * and ending: {@code 9-checkpoint-under-live-epoch},
 * {@code 10-next-holder-saw-checkpoint}, {@code 11-not-before-respected},
 * {@code 12-attempts-within-max}, {@code 13-wait-ended-once},
 * {@code 14-handoff-to-next-epoch} and {@code 15-events-exactly-once} ({@code 8} is the
 * change stream's, {@link StreamChecker}).
 *
 * <p>
 * Batches are checked entry by entry ({@link Op#entry()}): each lease a batch claim
 * granted is a claim like any other, and each completion of a batch is judged on its own,
 * exactly as a single completion.
 *
 * <p>
 * A stream worker's messages are judged alike ({@link StreamConnection}): a pushed lease
 * is a claim ({@link Op#STREAM_GRANT}), each write the request it stands for; each credit
 * outstanding when a stream ended counts as a claim whose answer was lost.
 */
final class HistoryChecker {

	/** The default {@code workgraph.retry.max-attempts}, for items without a policy. */
	static final int DEFAULT_MAX_ATTEMPTS = 10;

	private final List<Exchange> exchanges;

	private final List<LeaseRow> leases;

	private final Map<UUID, ItemRow> items;

	private final List<AttentionRow> attentionRequests;

	private final World world;

	private final Operations operations;

	private final List<Violation> violations = new ArrayList<>();

	private final Map<String, Long> figures = new LinkedHashMap<>();

	/** Granted leases as the client learnt them from claim answers. */
	private final Map<UUID, Exchange> claims = new HashMap<>();

	HistoryChecker(List<Exchange> exchanges, List<LeaseRow> leases, Map<UUID, ItemRow> items,
			List<AttentionRow> attentionRequests, World world) {
		this(exchanges, leases, items, attentionRequests, Operations.NONE, world);
	}

	HistoryChecker(List<Exchange> exchanges, List<LeaseRow> leases, Map<UUID, ItemRow> items,
			List<AttentionRow> attentionRequests, Operations operations, World world) {
		this.exchanges = exchanges;
		this.leases = leases;
		this.items = items;
		this.attentionRequests = attentionRequests;
		this.operations = operations;
		this.world = world;
	}

	List<Violation> violations() {
		return this.violations;
	}

	Map<String, Long> figures() {
		return this.figures;
	}

	HistoryChecker check() {
		Map<UUID, LeaseRow> leasesById = this.leases.stream()
			.collect(Collectors.toMap(LeaseRow::leaseId, Function.identity()));
		noDoubleGrantAndClaimsMatchTheServer(leasesById);
		noStaleWriteAccepted();
		epochsIncreaseAndLeasesNeverOverlap();
		everyEndedLeaseHasOneMatchingOutcome(leasesById);
		attentionRequestsWereRaisedUnderALiveLease(leasesById);
		acknowledgedAnswersKept();
		drainedAndNothingLost();
		completedExactlyOnce(leasesById);
		cappedQueuesStayedWithinTheirCaps();
		checkpointsWrittenUnderTheLiveEpoch(leasesById);
		nextHolderSawTheLatestCheckpoint();
		noLeaseBeforeNotBefore();
		attemptsWithinMaxAttemptsWithoutAHumansAnswer();
		waitsEndedOnce(leasesById);
		handoffsGrantedTheNextEpochToTheSuccessor();
		eventsStoredOnceAndCountedOnce();
		count();
		return this;
	}

	/**
	 * Invariant 9. Server side: every checkpoint names an existing lease of its item, at
	 * that lease's epoch and worker, and was written at or after the lease was acquired,
	 * before its expiry and before the next epoch was acquired (strictly, as for
	 * questions: the next claim needs the end committed first, and a handoff locks the
	 * lease in its first statement, so a checkpoint that committed before it had begun
	 * earlier); an item's checkpoints are numbered 1, 2, 3 … without a gap. Client side:
	 * an acknowledged checkpoint is in the database under the lease and epoch it
	 * presented, with the seq answered (a known-stale one acknowledged is already
	 * {@code stale-write-accepted}).
	 */
	private void checkpointsWrittenUnderTheLiveEpoch(Map<UUID, LeaseRow> leasesById) {
		Map<UUID, List<LeaseRow>> byItem = leasesByItem();
		Map<String, CheckpointRow> bySeq = new HashMap<>();
		Map<UUID, List<CheckpointRow>> checkpointsByItem = new HashMap<>();
		for (CheckpointRow checkpoint : this.operations.checkpoints()) {
			bySeq.put(checkpoint.itemId() + "#" + checkpoint.seq(), checkpoint);
			checkpointsByItem.computeIfAbsent(checkpoint.itemId(), (id) -> new ArrayList<>()).add(checkpoint);
			LeaseRow lease = leasesById.get(checkpoint.leaseId());
			if (lease == null) {
				violation("9-checkpoint-under-live-epoch",
						"a checkpoint was written under a lease that does not exist: " + checkpoint);
				continue;
			}
			List<LeaseRow> history = byItem.get(lease.itemId());
			LeaseRow next = (history.size() > lease.epoch()) ? history.get((int) lease.epoch()) : null;
			boolean alive = checkpoint.created() >= lease.acquired() && checkpoint.created() < lease.expires()
					&& (next == null || checkpoint.created() < next.acquired());
			if (!alive || checkpoint.epoch() != lease.epoch() || !checkpoint.itemId().equals(lease.itemId())
					|| !checkpoint.workerId().equals(lease.workerId())) {
				violation("9-checkpoint-under-live-epoch",
						"a checkpoint was written outside its lease's life:\n    " + checkpoint + "\n    " + lease);
			}
		}
		checkpointsByItem.forEach((item, checkpoints) -> {
			checkpoints.sort(Comparator.comparingLong(CheckpointRow::seq));
			for (int i = 0; i < checkpoints.size(); i++) {
				CheckpointRow checkpoint = checkpoints.get(i);
				if (checkpoint.seq() != i + 1) {
					violation("9-checkpoint-under-live-epoch",
							"item " + item + " has checkpoints " + checkpoints.stream().map(CheckpointRow::seq).toList()
									+ " (expected 1.." + checkpoints.size() + ")");
					return;
				}
			}
		});
		for (Exchange exchange : this.exchanges) {
			if (exchange.op() != Op.CHECKPOINT || !exchange.succeeded()) {
				continue;
			}
			CheckpointRow stored = bySeq.get(exchange.itemId() + "#" + exchange.facts().checkpointSeq());
			if (stored == null || !stored.leaseId().equals(exchange.leaseId()) || stored.epoch() != exchange.epoch()) {
				violation("9-checkpoint-under-live-epoch",
						"an acknowledged checkpoint is not in the database as acknowledged: " + exchange + " vs "
								+ stored);
			}
		}
	}

	/**
	 * Invariant 10: a lease granted (claim, batch claim entry or handoff) by a request
	 * sent after a checkpoint of the item was acknowledged shows that checkpoint or a
	 * later one. Grants whose answer was lost showed nothing and are not judged.
	 */
	private void nextHolderSawTheLatestCheckpoint() {
		Map<UUID, List<Exchange>> acknowledged = this.exchanges.stream()
			.filter((e) -> e.op() == Op.CHECKPOINT && e.succeeded())
			.collect(Collectors.groupingBy(Exchange::itemId));
		for (Exchange grant : this.exchanges) {
			if (!grant.op().grantsLease() || grant.status() != 201 || grant.facts().checkpointSeq() == null) {
				continue;
			}
			for (Exchange checkpoint : acknowledged.getOrDefault(grant.itemId(), List.of())) {
				if (checkpoint.receivedNanos() < grant.sentNanos()
						&& grant.facts().checkpointSeq() < checkpoint.facts().checkpointSeq()) {
					violation("10-next-holder-saw-checkpoint",
							"a grant showed checkpoint " + grant.facts().checkpointSeq() + " after checkpoint "
									+ checkpoint.facts().checkpointSeq() + " was acknowledged:\n    " + checkpoint
									+ "\n    " + grant);
				}
			}
		}
	}

	/**
	 * Invariant 11, on PostgreSQL's clock: an item whose {@code notBefore} an answer
	 * showed was not leased before it. A create's answer bounds the item's first lease; a
	 * release's (its {@code retryAfterSeconds}) or a failure's (its back-off) bounds the
	 * lease after the one it ended. Times nobody was told of (an expiry's back-off, an
	 * answer lost) are not judged.
	 */
	private void noLeaseBeforeNotBefore() {
		Map<UUID, List<LeaseRow>> byItem = leasesByItem();
		for (Exchange exchange : this.exchanges) {
			Long notBefore = exchange.facts().notBefore();
			if (notBefore == null || !exchange.succeeded()) {
				continue;
			}
			long epoch = (exchange.op() == Op.CREATE) ? 1 : exchange.epoch() + 1;
			List<LeaseRow> history = byItem.getOrDefault(exchange.itemId(), List.of());
			if (history.size() >= epoch && history.get((int) epoch - 1).acquired() < notBefore) {
				violation("11-not-before-respected",
						"leased " + (notBefore - history.get((int) epoch - 1).acquired()) + " µs before its notBefore "
								+ notBefore + ":\n    " + exchange + "\n    " + history.get((int) epoch - 1));
			}
		}
	}

	/**
	 * Invariant 12, from the database: per item, counting attempts (leases that ended
	 * {@code failed} or {@code expired}) in epoch order from the last human answer to its
	 * "retries exhausted" request, a lease acquired once the count had reached
	 * {@code maxAttempts} comes after a human answered a request the system raised on the
	 * item after the last attempt began; and the stored {@code attempts} is that count.
	 */
	private void attemptsWithinMaxAttemptsWithoutAHumansAnswer() {
		Map<UUID, List<AttentionRow>> systemRequests = this.attentionRequests.stream()
			.filter((request) -> "system".equals(request.raisedBy()))
			.collect(Collectors.groupingBy(AttentionRow::itemId));
		for (Map.Entry<UUID, List<LeaseRow>> entry : leasesByItem().entrySet()) {
			ItemRow item = this.items.get(entry.getKey());
			if (item == null) {
				continue;
			}
			int max = (item.maxAttempts() != null) ? item.maxAttempts() : DEFAULT_MAX_ATTEMPTS;
			List<AttentionRow> requests = systemRequests.getOrDefault(item.id(), List.of());
			int attempts = 0;
			long lastAttemptAcquired = Long.MIN_VALUE;
			long countedFrom = Long.MIN_VALUE;
			for (LeaseRow lease : entry.getValue()) {
				attempts = resetByAnswers(requests, attempts, countedFrom, lease.acquired());
				countedFrom = lease.acquired();
				if (attempts >= max) {
					long since = lastAttemptAcquired;
					boolean answered = requests.stream()
						.anyMatch((request) -> request.answeredByAHuman() && request.opened() >= since
								&& request.resolved() <= lease.acquired());
					if (!answered) {
						violation("12-attempts-within-max", "leased again after " + attempts + " attempts of " + max
								+ " without a human's answer: " + lease);
					}
				}
				if ("failed".equals(lease.outcome()) || "expired".equals(lease.outcome())) {
					attempts++;
					lastAttemptAcquired = lease.acquired();
				}
			}
			attempts = resetByAnswers(requests, attempts, countedFrom, Long.MAX_VALUE);
			if (item.attempts() != attempts) {
				violation("12-attempts-within-max", "item " + item.id() + " stores " + item.attempts()
						+ " attempts but its history counts " + attempts);
			}
		}
	}

	/** Attempts after any human answer to "retries exhausted" in (from, until]. */
	private static int resetByAnswers(List<AttentionRow> requests, int attempts, long from, long until) {
		boolean reset = requests.stream()
			.anyMatch((request) -> "retries_exhausted".equals(request.kind()) && request.answeredByAHuman()
					&& request.resolved() > from && request.resolved() <= until);
		return reset ? 0 : attempts;
	}

	/**
	 * Invariant 13. From the database: every wait ended (none open after the drain) in
	 * exactly one way: {@code matched} by a stored event of its name and key and named by
	 * no {@code wait_timed_out} request, {@code timed_out} at or after its deadline, or
	 * {@code cancelled} with its item; it was registered under its lease, at its epoch,
	 * by the transaction that ended the lease {@code waiting}. Against the client's
	 * record: a wait registered after an event of its key was acknowledged was matched at
	 * once (the answer says so, and the database agrees); a wait without a deadline whose
	 * key had an event acknowledged at any time was matched (before its registration the
	 * event was retained, after it the event found the wait open; only a cancellation of
	 * the item ends it otherwise).
	 */
	private void waitsEndedOnce(Map<UUID, LeaseRow> leasesById) {
		Map<UUID, EventRow> events = this.operations.events()
			.stream()
			.collect(Collectors.toMap(EventRow::id, Function.identity()));
		Set<UUID> timedOutRequests = this.attentionRequests.stream()
			.filter((request) -> "wait_timed_out".equals(request.kind()) && request.waitId() != null)
			.map(AttentionRow::waitId)
			.collect(Collectors.toSet());
		Map<String, List<Exchange>> eventsByKey = this.exchanges.stream()
			.filter((e) -> e.op() == Op.EVENT && e.succeeded())
			.collect(Collectors.groupingBy((e) -> World.eventKey(e.token())));
		Map<UUID, WaitRow> waitsById = new HashMap<>();
		for (WaitRow wait : this.operations.waits()) {
			waitsById.put(wait.id(), wait);
			LeaseRow lease = leasesById.get(wait.leaseId());
			if (lease == null || !"waiting".equals(lease.outcome()) || lease.epoch() != wait.epoch()
					|| !lease.itemId().equals(wait.itemId()) || !lease.workerId().equals(wait.workerId())
					|| !Long.valueOf(wait.created()).equals(lease.ended())) {
				violation("13-wait-ended-once",
						"a wait was not registered by its lease's ending:\n    " + wait + "\n    " + lease);
			}
			switch (wait.status()) {
				case "matched" -> {
					EventRow event = events.get(wait.matchedBy());
					if (event == null || !event.name().equals(wait.name()) || !event.key().equals(wait.key())) {
						violation("13-wait-ended-once",
								"a wait was matched by an event of another key, or none stored: " + wait + " by "
										+ event);
					}
					if (timedOutRequests.contains(wait.id())) {
						violation("13-wait-ended-once", "a wait was matched and also timed out: " + wait);
					}
				}
				case "timed_out" -> {
					if (wait.timeout() == null || wait.resolved() < wait.timeout()) {
						violation("13-wait-ended-once", "a wait timed out before its deadline: " + wait);
					}
				}
				case "cancelled" -> {
					ItemRow item = this.items.get(wait.itemId());
					if (item == null || !"cancelled".equals(item.status())) {
						violation("13-wait-ended-once", "a wait was cancelled but its item was not: " + wait);
					}
				}
				default ->
					violation("13-wait-ended-once", "a wait still " + wait.status() + " after the drain: " + wait);
			}
			if (wait.timeout() == null && !"matched".equals(wait.status()) && !"cancelled".equals(wait.status())
					&& eventsByKey.containsKey(wait.key())) {
				violation("13-wait-ended-once",
						"a wait without a deadline was not matched though an event of its key was "
								+ "acknowledged (a lost wake-up): " + wait + "\n    "
								+ eventsByKey.get(wait.key()).getFirst());
			}
		}
		for (Exchange registration : this.exchanges) {
			if (registration.op() != Op.WAIT || !registration.succeeded()) {
				continue;
			}
			WaitRow stored = waitsById.get(registration.facts().waitId());
			if (stored == null) {
				violation("13-wait-ended-once", "an acknowledged wait is not in the database: " + registration);
				continue;
			}
			boolean matchedAtOnce = "matched".equals(registration.facts().waitStatus());
			if (matchedAtOnce && !registration.facts().eventId().equals(stored.matchedBy())) {
				violation("13-wait-ended-once", "a wait answered as matched at once is stored as " + stored.status()
						+ " by " + stored.matchedBy() + ": " + registration);
			}
			Exchange earlier = eventsByKey.getOrDefault(registration.token(), List.of())
				.stream()
				.filter((event) -> event.receivedNanos() < registration.sentNanos())
				.findFirst()
				.orElse(null);
			if (earlier != null && !matchedAtOnce) {
				violation("13-wait-ended-once",
						"a wait registered after an event of its key was acknowledged was not matched at once:\n    "
								+ earlier + "\n    " + registration);
			}
		}
	}

	/**
	 * Invariant 14: a lease that ended {@code handed_off} at epoch e is followed by the
	 * item's lease e + 1 (the handoff grants it in the transaction that ends e: the item
	 * is never without a holder in between, see invariant 2 for the times), held by a
	 * worker that a handoff request of lease e named and that was accepted or went
	 * unanswered; an acknowledged handoff granted epoch e + 1 to the worker it named, and
	 * the database agrees.
	 */
	private void handoffsGrantedTheNextEpochToTheSuccessor() {
		Map<UUID, List<LeaseRow>> byItem = leasesByItem();
		// A grant is recorded after its handoff, with its times and path + "[successor]";
		// an unanswered handoff's grant names the successor it may have granted.
		Map<String, Exchange> handoffs = new HashMap<>();
		Map<UUID, Set<String>> namedSuccessors = new HashMap<>();
		for (Exchange exchange : this.exchanges) {
			if (exchange.op() == Op.HANDOFF) {
				handoffs.put(exchange.path() + "[successor]@" + exchange.sentNanos(), exchange);
			}
			else if (exchange.op() == Op.HANDOFF_GRANT) {
				Exchange handoff = handoffs.get(exchange.path() + "@" + exchange.sentNanos());
				if (handoff != null) {
					namedSuccessors.computeIfAbsent(handoff.leaseId(), (id) -> new HashSet<>()).add(exchange.actor());
				}
			}
		}
		for (LeaseRow lease : this.leases) {
			if (!"handed_off".equals(lease.outcome())) {
				continue;
			}
			List<LeaseRow> history = byItem.get(lease.itemId());
			LeaseRow next = (history.size() > lease.epoch()) ? history.get((int) lease.epoch()) : null;
			if (next == null || next.epoch() != lease.epoch() + 1
					|| !namedSuccessors.getOrDefault(lease.leaseId(), Set.of()).contains(next.workerId())) {
				violation("14-handoff-to-next-epoch", "a handoff's next epoch is missing or held by a worker no "
						+ "handoff named:\n    " + lease + "\n    " + next);
			}
		}
		for (Exchange exchange : this.exchanges) {
			if (exchange.op() != Op.HANDOFF_GRANT || exchange.status() != 201) {
				continue;
			}
			Exchange handoff = handoffs.get(exchange.path() + "@" + exchange.sentNanos());
			List<LeaseRow> history = byItem.getOrDefault(exchange.itemId(), List.of());
			LeaseRow granted = (history.size() >= exchange.epoch()) ? history.get((int) (exchange.epoch() - 1)) : null;
			if (handoff == null || !handoff.succeeded() || exchange.epoch() != handoff.epoch() + 1 || granted == null
					|| !granted.workerId().equals(exchange.actor()) || !granted.leaseId().equals(exchange.leaseId())) {
				violation("14-handoff-to-next-epoch", "the successor's lease is not the next epoch as named:\n    "
						+ handoff + "\n    " + exchange + "\n    " + granted);
			}
		}
	}

	/**
	 * Invariant 15: every acknowledged event is stored once, under the id its sender gave
	 * it (every answer for one id names the same stored event, at most one of them
	 * {@code 202}, and each says the waits that event matched when it arrived); every
	 * stored event was sent by the run; and an event's {@code matchedWaits} is exactly
	 * the waits it matched other than at their registration (those are matched at once,
	 * in the transaction that created them: {@code resolvedAt = createdAt}).
	 */
	private void eventsStoredOnceAndCountedOnce() {
		Map<String, EventRow> byClientId = new HashMap<>();
		for (EventRow event : this.operations.events()) {
			if (event.clientId() != null && byClientId.put(event.clientId(), event) != null) {
				violation("15-events-exactly-once", "one event id stored twice: " + event);
			}
		}
		Set<String> sent = new HashSet<>();
		Map<String, Integer> recorded = new HashMap<>();
		for (Exchange exchange : this.exchanges) {
			if (exchange.op() != Op.EVENT) {
				continue;
			}
			sent.add(exchange.token());
			if (!exchange.succeeded()) {
				continue;
			}
			EventRow stored = byClientId.get(exchange.token());
			if (stored == null || !stored.id().equals(exchange.facts().eventId())) {
				violation("15-events-exactly-once",
						"an acknowledged event is not stored as answered (lost): " + exchange + " vs " + stored);
				continue;
			}
			if (exchange.status() == 202 && recorded.merge(exchange.token(), 1, Integer::sum) > 1) {
				violation("15-events-exactly-once", "one event id recorded as new twice: " + exchange);
			}
			if (exchange.facts().matchedWaits() != stored.matchedWaits()) {
				violation("15-events-exactly-once",
						"an event's answer says it matched " + exchange.facts().matchedWaits() + " waits, the database "
								+ stored.matchedWaits() + ": " + exchange);
			}
		}
		Map<UUID, Long> matchedLater = this.operations.waits()
			.stream()
			.filter((wait) -> wait.matchedBy() != null && !Long.valueOf(wait.created()).equals(wait.resolved()))
			.collect(Collectors.groupingBy(WaitRow::matchedBy, Collectors.counting()));
		for (EventRow event : this.operations.events()) {
			if (!sent.contains(event.clientId())) {
				violation("15-events-exactly-once", "an event nobody sent is stored: " + event);
			}
			long matched = matchedLater.getOrDefault(event.id(), 0L);
			if (matched != event.matchedWaits()) {
				violation("15-events-exactly-once", "an event counts " + event.matchedWaits() + " matched waits but "
						+ matched + " waits were matched by its arrival: " + event);
			}
		}
	}

	/**
	 * No two claim answers grant the same item at the same epoch, and each lease a claim
	 * answered with exists in the database as answered.
	 */
	private void noDoubleGrantAndClaimsMatchTheServer(Map<UUID, LeaseRow> leasesById) {
		Map<String, Exchange> byItemEpoch = new HashMap<>();
		for (Exchange exchange : this.exchanges) {
			if (!exchange.op().grantsLease() || exchange.status() != 201) {
				continue;
			}
			this.claims.put(exchange.leaseId(), exchange);
			Exchange earlier = byItemEpoch.putIfAbsent(exchange.itemId() + "@" + exchange.epoch(), exchange);
			if (earlier != null) {
				violation("2-epochs-and-no-overlap", "item " + exchange.itemId() + " granted twice at epoch "
						+ exchange.epoch() + ":\n    " + earlier + "\n    " + exchange);
			}
			LeaseRow row = leasesById.get(exchange.leaseId());
			if (row == null) {
				violation("3-one-outcome", "a granted lease is missing from the database: " + exchange);
			}
			else if (!row.itemId().equals(exchange.itemId()) || row.epoch() != exchange.epoch()
					|| !row.workerId().equals(exchange.actor())) {
				violation("2-epochs-and-no-overlap",
						"the database disagrees with the claim answer: " + exchange + " vs " + row);
			}
		}
	}

	/**
	 * Invariant 1. A fenced write accepted for epoch e must have been sent before the
	 * answer granting epoch e+1 of the item arrived (otherwise the service accepted it
	 * after the new grant), and no write is accepted for a lease after the client was
	 * told the lease is dead (its end accepted, or a lease_expired / lease_ended
	 * rejection).
	 */
	private void noStaleWriteAccepted() {
		Map<String, Exchange> grants = new HashMap<>();
		this.claims.values().forEach((claim) -> grants.put(claim.itemId() + "@" + claim.epoch(), claim));
		Map<UUID, Exchange> deathProof = new HashMap<>();
		for (Exchange exchange : this.exchanges) {
			if (!exchange.op().leaseMutation()) {
				continue;
			}
			boolean proof = (exchange.succeeded() && exchange.op().endsLease()) || (exchange.status() == 409
					&& ("lease_expired".equals(exchange.code()) || "lease_ended".equals(exchange.code())));
			if (proof) {
				deathProof.merge(exchange.leaseId(), exchange,
						(a, b) -> (a.receivedNanos() <= b.receivedNanos()) ? a : b);
			}
		}
		for (Exchange write : this.exchanges) {
			if (!write.op().leaseMutation() || !write.succeeded()) {
				continue;
			}
			Exchange claim = this.claims.get(write.leaseId());
			if (claim == null) {
				// A lease whose claim answer was lost: its writes are checked
				// server-side.
				continue;
			}
			if (write.epoch() != claim.epoch()) {
				violation("1-no-stale-write",
						"accepted with an epoch that is not the lease's (" + claim.epoch() + "): " + write);
			}
			Exchange next = grants.get(claim.itemId() + "@" + (claim.epoch() + 1));
			if (next != null && write.sentNanos() > next.receivedNanos()) {
				violation("1-no-stale-write", "accepted after epoch " + (claim.epoch() + 1)
						+ " of the item was granted:\n    grant " + next + "\n    write " + write);
			}
			Exchange dead = deathProof.get(write.leaseId());
			if (dead != null && dead != write && write.sentNanos() > dead.receivedNanos()) {
				violation("1-no-stale-write",
						"accepted after the lease was known dead:\n    proof " + dead + "\n    write " + write);
			}
		}
	}

	/**
	 * Invariant 2, from the database: per item, epochs 1, 2, 3 … with no gap, the item at
	 * its latest epoch, at most one active lease (the latest), and each lease ended no
	 * later than the next one was acquired. Per lease: an expired lease ended at its
	 * expiry, any other before it. And the server-side half of invariant 1: no lease was
	 * renewed once the next epoch had been granted.
	 *
	 * <p>
	 * PostgreSQL's {@code now()} is the start of the writing transaction, so a renewal
	 * that commits while another transaction is ending the lease can carry a time a few
	 * microseconds after {@code ended_at}: that is not a stale write, and is not checked.
	 * Granting the next epoch needs the end committed first, so that order is strict.
	 */
	/**
	 * No capped queue ever had more leases at once than its cap. A lease's history row
	 * ends no later than the database stopped counting it (an expired lease counts until
	 * it is recorded, its row ends at its expiry), so rows that overlap were leases
	 * counted together.
	 */
	private void cappedQueuesStayedWithinTheirCaps() {
		World.CAPS.forEach((queue, cap) -> {
			List<long[]> events = new ArrayList<>();
			for (LeaseRow lease : this.leases) {
				if (queue.equals(lease.queue())) {
					events.add(new long[] { lease.acquired(), 1 });
					if (!lease.active()) {
						events.add(new long[] { lease.ended(), -1 });
					}
				}
			}
			// At one instant, an end before a start: a slot freed is taken at once.
			events.sort(Comparator.<long[]>comparingLong((event) -> event[0]).thenComparingLong((event) -> event[1]));
			long active = 0;
			for (long[] event : events) {
				active += event[1];
				if (active > cap) {
					violation("7-capped-queue-within-cap",
							"queue " + queue + " had " + active + " leases at once at " + event[0] + " µs, cap " + cap);
					return;
				}
			}
		});
	}

	private void epochsIncreaseAndLeasesNeverOverlap() {
		for (Map.Entry<UUID, List<LeaseRow>> entry : leasesByItem().entrySet()) {
			List<LeaseRow> history = entry.getValue();
			for (int i = 0; i < history.size(); i++) {
				LeaseRow lease = history.get(i);
				if (lease.epoch() != i + 1) {
					violation("2-epochs-and-no-overlap", "item " + entry.getKey() + " has epochs "
							+ history.stream().map(LeaseRow::epoch).toList() + " (expected 1.." + history.size() + ")");
					break;
				}
				leaseIsWellFormed(lease);
				if (lease.active() && i != history.size() - 1) {
					violation("2-epochs-and-no-overlap", "an active lease is not the item's latest: " + lease);
				}
				if (i > 0) {
					LeaseRow previous = history.get(i - 1);
					if (previous.active()) {
						violation("2-epochs-and-no-overlap",
								"two leases of one item active at once:\n    " + previous + "\n    " + lease);
					}
					else if (previous.ended() > lease.acquired()) {
						violation("2-epochs-and-no-overlap", "leases overlap by "
								+ (previous.ended() - lease.acquired()) + " µs:\n    " + previous + "\n    " + lease);
					}
					if (lease.acquired() <= previous.acquired()) {
						violation("2-epochs-and-no-overlap",
								"a later epoch was acquired no later:\n    " + previous + "\n    " + lease);
					}
					if (previous.renewed() != null && previous.renewed() >= lease.acquired()) {
						violation("1-no-stale-write",
								"renewed after the next epoch was granted:\n    " + previous + "\n    " + lease);
					}
				}
			}
			ItemRow item = this.items.get(entry.getKey());
			if (item != null && item.epoch() != history.size()) {
				violation("2-epochs-and-no-overlap", "item " + item.id() + " is at epoch " + item.epoch() + " but has "
						+ history.size() + " leases");
			}
		}
	}

	/** Each item's leases, by epoch. */
	private Map<UUID, List<LeaseRow>> leasesByItem() {
		Map<UUID, List<LeaseRow>> byItem = this.leases.stream().collect(Collectors.groupingBy(LeaseRow::itemId));
		byItem.values().forEach((history) -> history.sort(Comparator.comparingLong(LeaseRow::epoch)));
		return byItem;
	}

	private void leaseIsWellFormed(LeaseRow lease) {
		if (lease.expires() <= lease.acquired()) {
			violation("2-epochs-and-no-overlap", "expires no later than acquired: " + lease);
		}
		if (lease.renewed() != null && lease.renewed() < lease.acquired()) {
			violation("2-epochs-and-no-overlap", "renewed before acquired: " + lease);
		}
		if (lease.active()) {
			return;
		}
		if (lease.ended() < lease.acquired()) {
			violation("2-epochs-and-no-overlap", "ended before acquired: " + lease);
		}
		if ("expired".equals(lease.outcome())) {
			if (lease.ended() != lease.expires()) {
				violation("3-one-outcome", "expired but did not end at its expiry: " + lease);
			}
		}
		else if (lease.ended() >= lease.expires()) {
			violation("1-no-stale-write", "ended as " + lease.outcome() + " at or after its expiry "
					+ "(a write accepted on a dead lease): " + lease);
		}
	}

	/**
	 * Invariant 3: when the run is drained no lease is active, every lease has exactly
	 * one outcome, the one the accepted request asked for, at most one ending request per
	 * lease was accepted, and every stale-lease rejection named what the history shows.
	 */
	private void everyEndedLeaseHasOneMatchingOutcome(Map<UUID, LeaseRow> leasesById) {
		Set<String> known = Set.of("completed", "released", "cancelled", "decomposed", "attention_requested", "expired",
				"failed", "waiting", "handed_off");
		for (LeaseRow lease : this.leases) {
			if (lease.active()) {
				violation("3-one-outcome", "still active after the drain: " + lease);
			}
			else if (!known.contains(lease.outcome())) {
				violation("3-one-outcome", "unknown outcome: " + lease);
			}
		}
		Map<UUID, Exchange> acceptedEnd = new HashMap<>();
		for (Exchange exchange : this.exchanges) {
			if (!exchange.op().endsLease() || !exchange.succeeded()) {
				continue;
			}
			LeaseRow lease = leasesById.get(exchange.leaseId());
			Exchange earlier = acceptedEnd.putIfAbsent(exchange.leaseId(), exchange);
			if (earlier != null) {
				violation("3-one-outcome",
						"two requests ending one lease were accepted:\n    " + earlier + "\n    " + exchange);
			}
			if (lease != null && !exchange.op().outcome().equals(lease.outcome())) {
				violation("3-one-outcome",
						"accepted " + exchange.op() + " but the history says " + lease.outcome() + ": " + exchange);
			}
			if (exchange.op() != Op.ASK_BLOCKING && !exchange.op().outcome().equals(exchange.outcome())) {
				violation("3-one-outcome", "the answer shows outcome " + exchange.outcome() + ": " + exchange);
			}
		}
		// Which stale-lease code (docs/http-api.md). "lease_expired" is only wrong when
		// the
		// lease's other ending had already been answered when the rejected request was
		// sent: an ending whose transaction began before expiresAt may commit just after
		// a request that found the lease past its expiry.
		for (Exchange exchange : this.exchanges) {
			if (!exchange.op().leaseMutation() || exchange.status() != 409) {
				continue;
			}
			LeaseRow lease = leasesById.get(exchange.leaseId());
			if (lease == null || lease.active()) {
				continue;
			}
			String code = exchange.code();
			Exchange ending = acceptedEnd.get(exchange.leaseId());
			if ("lease_expired".equals(code) && !"expired".equals(lease.outcome()) && ending != null
					&& ending.receivedNanos() < exchange.sentNanos()) {
				violation("3-one-outcome", "rejected as lease_expired after the lease had ended " + lease.outcome()
						+ ":\n    " + ending + "\n    " + exchange);
			}
			if ("lease_ended".equals(code) && "expired".equals(lease.outcome())) {
				violation("3-one-outcome", "rejected as lease_ended, but the lease expired: " + exchange);
			}
			if ("epoch_mismatch".equals(code) && exchange.epoch() != null && exchange.epoch() == lease.epoch()) {
				violation("3-one-outcome", "rejected as epoch_mismatch with the lease's own epoch: " + exchange);
			}
		}
		// Leases the client never heard of come only from claims whose answer was lost (a
		// lost batch claim counts each of the leases it asked for).
		Map<String, Long> unknownClaims = this.exchanges.stream()
			.filter((exchange) -> exchange.op().grantsLease() && exchange.unavailable())
			.collect(Collectors.groupingBy(Exchange::actor, Collectors.counting()));
		Map<String, Long> unknownLeases = this.leases.stream()
			.filter((lease) -> !this.claims.containsKey(lease.leaseId()))
			.collect(Collectors.groupingBy(LeaseRow::workerId, Collectors.counting()));
		unknownLeases.forEach((worker, count) -> {
			if (count > unknownClaims.getOrDefault(worker, 0L)) {
				violation("3-one-outcome", worker + " holds " + count + " leases it was never granted, but its "
						+ "unanswered claims asked for only " + unknownClaims.getOrDefault(worker, 0L));
			}
		});
	}

	/**
	 * A worker's question is recorded under the lease it presented, at that lease's
	 * epoch, after it was acquired, before it expired, and before the next epoch was
	 * granted.
	 */
	private void attentionRequestsWereRaisedUnderALiveLease(Map<UUID, LeaseRow> leasesById) {
		Map<UUID, List<LeaseRow>> byItem = leasesByItem();
		for (AttentionRow request : this.attentionRequests) {
			if (!"worker".equals(request.raisedBy())) {
				continue;
			}
			LeaseRow lease = leasesById.get(request.leaseId());
			if (lease == null) {
				violation("1-no-stale-write", "a question was raised under a lease that does not exist: " + request);
				continue;
			}
			List<LeaseRow> history = byItem.get(lease.itemId());
			LeaseRow next = (history.size() > lease.epoch()) ? history.get((int) lease.epoch()) : null;
			boolean alive = request.opened() >= lease.acquired() && request.opened() < lease.expires()
					&& (next == null || request.opened() < next.acquired());
			if (!alive || request.epoch() != lease.epoch() || !request.itemId().equals(lease.itemId())) {
				violation("1-no-stale-write",
						"a question was accepted outside its lease's life:\n    " + request + "\n    " + lease);
			}
		}
	}

	/**
	 * Invariant 4 for answers: a question the service acknowledged resolving is resolved
	 * in the database, and is acknowledged once. A second {@code 200} for the same
	 * question means the first resolution was lost (a failover that dropped an
	 * acknowledged commit, say) and the question came back open.
	 */
	private void acknowledgedAnswersKept() {
		Map<UUID, String> statusById = this.attentionRequests.stream()
			.collect(Collectors.toMap(AttentionRow::id, AttentionRow::status));
		Map<String, List<Exchange>> acknowledged = this.exchanges.stream()
			.filter((e) -> e.op() == Op.RESOLVE && e.status() == 200)
			.collect(Collectors.groupingBy((e) -> e.path().split("/")[2]));
		acknowledged.forEach((id, answers) -> {
			String status = statusById.get(UUID.fromString(id));
			if (!"resolved".equals(status)) {
				violation("4-drained-nothing-lost",
						"question " + id + " was acknowledged resolved but is " + status + ": " + answers.getFirst());
			}
			if (answers.size() > 1) {
				violation("4-drained-nothing-lost", "question " + id + " was acknowledged resolved " + answers.size()
						+ " times (an acknowledged answer was lost): " + answers);
			}
		});
	}

	/**
	 * Invariant 4: every item is terminal; every item the service confirmed creating
	 * exists; every item in the database was confirmed, or came from a request whose
	 * answer was lost.
	 */
	private void drainedAndNothingLost() {
		Map<UUID, String> known = this.world.items();
		Set<String> unknownOutcome = this.world.unknownOutcomeTokens();
		long open = 0;
		long explained = 0;
		for (ItemRow item : this.items.values()) {
			if (!item.terminal()) {
				open++;
				if (open <= 20) {
					violation("4-drained-nothing-lost", "not terminal after the drain: " + item);
				}
			}
			if (!known.containsKey(item.id())) {
				String token = item.title().split("/", 2)[0];
				if (unknownOutcome.contains(token)) {
					explained++;
				}
				else {
					violation("4-drained-nothing-lost", "an item nobody was told about: " + item);
				}
			}
		}
		if (open > 20) {
			violation("4-drained-nothing-lost", (open - 20) + " more items not terminal after the drain");
		}
		for (Map.Entry<UUID, String> item : known.entrySet()) {
			if (!this.items.containsKey(item.getKey())) {
				violation("4-drained-nothing-lost", "lost: the service confirmed creating " + item.getKey() + " ("
						+ item.getValue() + ") but it is not in the database");
			}
		}
		this.figures.put("items_confirmed", (long) known.size());
		this.figures.put("items_from_unanswered_requests", explained);
		this.figures.put("items_in_database", (long) this.items.size());
		this.figures.put("items_open_after_drain", open);
	}

	/**
	 * Completed exactly once: one completed lease per completed item, none for any other,
	 * at most one accepted completion per item, and the stored result is the one the
	 * accepted completion sent. A refused completion changed nothing: a lease completed
	 * in the database had a completion accepted, or one whose answer was lost.
	 */
	private void completedExactlyOnce(Map<UUID, LeaseRow> leasesById) {
		Map<UUID, List<LeaseRow>> completions = this.leases.stream()
			.filter((lease) -> "completed".equals(lease.outcome()))
			.collect(Collectors.groupingBy(LeaseRow::itemId));
		for (ItemRow item : this.items.values()) {
			List<LeaseRow> completed = completions.getOrDefault(item.id(), List.of());
			int expected = item.status().equals("completed") ? 1 : 0;
			if (completed.size() != expected) {
				violation("4-drained-nothing-lost", "item " + item.id() + " is " + item.status() + " with "
						+ completed.size() + " completed leases");
			}
			else if (expected == 1 && item.resultLease() != null
					&& !item.resultLease().equals(completed.getFirst().leaseId().toString())) {
				violation("4-drained-nothing-lost", "item " + item.id() + " holds the result sent under lease "
						+ item.resultLease() + " but was completed under " + completed.getFirst().leaseId());
			}
		}
		Map<UUID, Exchange> acceptedCompletion = new HashMap<>();
		Set<UUID> mayHaveCompleted = new HashSet<>();
		for (Exchange exchange : this.exchanges) {
			if (exchange.op().completes() && (exchange.succeeded() || exchange.unavailable())) {
				mayHaveCompleted.add(exchange.leaseId());
			}
			if (exchange.op().completes() && exchange.succeeded()) {
				Exchange earlier = acceptedCompletion.putIfAbsent(exchange.itemId(), exchange);
				if (earlier != null) {
					violation("4-drained-nothing-lost",
							"one item completed twice:\n    " + earlier + "\n    " + exchange);
				}
				ItemRow item = this.items.get(exchange.itemId());
				if (item == null || !item.status().equals("completed")) {
					violation("4-drained-nothing-lost", "completion accepted but the item is "
							+ ((item != null) ? item.status() : "missing") + ": " + exchange);
				}
			}
		}
		for (LeaseRow lease : this.leases) {
			if ("completed".equals(lease.outcome()) && !mayHaveCompleted.contains(lease.leaseId())) {
				violation("1-no-stale-write",
						"completed, though no completion under it was accepted or went unanswered: " + lease);
			}
		}
	}

	private void count() {
		long expired = this.leases.stream().filter((lease) -> "expired".equals(lease.outcome())).count();
		Map<UUID, Long> latestEpoch = new HashMap<>();
		this.leases.forEach((lease) -> latestEpoch.merge(lease.itemId(), lease.epoch(), Math::max));
		long reclaimed = this.leases.stream()
			.filter((lease) -> "expired".equals(lease.outcome()) && latestEpoch.get(lease.itemId()) > lease.epoch())
			.count();
		Map<String, Long> outcomes = this.leases.stream()
			.filter((lease) -> lease.outcome() != null)
			.collect(Collectors.groupingBy(LeaseRow::outcome, java.util.TreeMap::new, Collectors.counting()));
		this.figures.put("leases", (long) this.leases.size());
		outcomes.forEach((outcome, count) -> this.figures.put("leases_" + outcome, count));
		this.figures.put("expiries", expired);
		this.figures.put("expired_then_reclaimed", reclaimed);
		this.figures.put("system_attention_requests",
				this.attentionRequests.stream().filter((request) -> "system".equals(request.raisedBy())).count());
		this.figures.put("worker_attention_requests",
				this.attentionRequests.stream().filter((request) -> "worker".equals(request.raisedBy())).count());
		this.figures.put("checkpoints_stored", (long) this.operations.checkpoints().size());
		this.operations.waits()
			.stream()
			.collect(Collectors.groupingBy(WaitRow::status, java.util.TreeMap::new, Collectors.counting()))
			.forEach((status, count) -> this.figures.put("waits_" + status, count));
		this.figures.put("events_stored", (long) this.operations.events().size());
		this.attentionRequests.stream()
			.filter((request) -> request.kind() != null)
			.collect(Collectors.groupingBy(AttentionRow::kind, java.util.TreeMap::new, Collectors.counting()))
			.forEach((kind, count) -> this.figures.put("system_requests_" + kind, count));
		Set<UUID> leasedItems = new HashSet<>(latestEpoch.keySet());
		this.figures.put("items_ever_leased", (long) leasedItems.size());
	}

	private void violation(String invariant, String detail) {
		this.violations.add(new Violation(invariant, detail));
	}

}
