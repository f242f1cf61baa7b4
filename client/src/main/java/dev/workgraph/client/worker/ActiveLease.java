package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import dev.workgraph.client.AttentionQuery;
import dev.workgraph.client.AttentionRequest;
import dev.workgraph.client.AttentionRequestPage;
import dev.workgraph.client.Claim;
import dev.workgraph.client.CompletedWithNext;
import dev.workgraph.client.Decomposed;
import dev.workgraph.client.EndedLease;
import dev.workgraph.client.Item;
import dev.workgraph.client.ItemQuery;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.LeaseRef;
import dev.workgraph.client.NewAttentionRequest;
import dev.workgraph.client.NewChild;
import dev.workgraph.client.NextClaim;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.problem.LeaseRejected;
import dev.workgraph.client.problem.NotFound;
import dev.workgraph.client.problem.RateLimited;
import dev.workgraph.client.problem.RequestInterrupted;
import dev.workgraph.client.problem.RequestRejected;
import dev.workgraph.client.problem.ServiceUnreachable;
import dev.workgraph.client.problem.ValidationFailed;
import dev.workgraph.client.problem.WorkGraphException;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * One claimed item in a worker: the lease's state machine, its renewals, and the writes
 * that end it.
 *
 * <pre>
 * ACTIVE ──(own ending write starts)──▶ ENDING ──(write succeeded)──▶ ENDED
 *   │  ▲                                  │
 *   │  └──(write refused for another reason than the lease: e.g. open_children)
 *   └──(refused, out of time, worker stopped, handler gave up)──▶ LOST ◀──(refused, out of time)
 * </pre>
 *
 * Renewals run only in ACTIVE; an answer to a renewal sent before the state last changed
 * is ignored (the generation counter). In LOST nothing is sent for the lease any more,
 * except the runtime's own release when the worker stops.
 */
final class ActiveLease implements LeaseContext {

	private static final Duration DEFAULT_LENGTH = Duration.ofSeconds(300);

	/** How long to keep asking the service how a lease ended after an ambiguous write. */
	private static final Duration OUTCOME_CHECK_WINDOW = Duration.ofSeconds(30);

	private enum State {

		ACTIVE, ENDING, ENDED, LOST

	}

	private final Settings settings;

	private final Item item;

	private volatile Lease lease;

	private final CompletableFuture<LeaseLost> lost = new CompletableFuture<>();

	private final boolean renewAtOnce;

	// Guarded by this:

	private final LeaseClock clock;

	private State state = State.ACTIVE;

	private LeaseLost lostBecause;

	private long generation;

	private int renewalFailures;

	private ScheduledFuture<?> renewal;

	private ScheduledFuture<?> watchdog;

	private Thread handlerThread;

	/**
	 * @param sentAt when the claim was sent (monotonic nanoseconds)
	 * @param receivedAt when its answer came
	 */
	ActiveLease(Settings settings, Claim claim, long sentAt, long receivedAt) {
		this.settings = settings;
		this.item = claim.item();
		this.lease = claim.lease();
		Duration length = lengthOf(claim.lease());
		// A long-poll claim may have waited at the service before the grant: the send
		// time
		// then says nothing about when the lease started. Take the arrival instead (off
		// by
		// the answer's transit time at most) and renew at once to learn a safe bound.
		this.renewAtOnce = (receivedAt - sentAt) > length.toNanos() / 3;
		this.clock = new LeaseClock(this.renewAtOnce ? receivedAt : sentAt, length);
	}

	/** Starts keeping the lease alive. */
	synchronized void start() {
		scheduleRenewal(this.renewAtOnce ? 0 : this.clock.untilRenewal(this.settings.now()));
		scheduleWatchdog();
	}

	// What the handler sees

	@Override
	public Item item() {
		return this.item;
	}

	@Override
	public Lease lease() {
		return this.lease;
	}

	@Override
	public String workerId() {
		return (this.settings.workerId() != null) ? this.settings.workerId() : this.lease.workerId();
	}

	@Override
	public synchronized boolean isLost() {
		return this.state == State.LOST;
	}

	@Override
	public synchronized void ensureHeld() {
		if (this.state == State.LOST) {
			throw this.lostBecause.rethrown();
		}
	}

	@Override
	public CompletableFuture<LeaseLost> whenLost() {
		return this.lost.copy();
	}

	@Override
	public synchronized Duration timeLeft() {
		if (this.state != State.ACTIVE && this.state != State.ENDING) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(Math.max(0, this.clock.remaining(this.settings.now())));
	}

	@Override
	public WorkGraphClient client() {
		return this.settings.client();
	}

	// Writes that end the lease

	@Override
	public EndedLease complete(Object result) {
		return end("complete", LeaseOutcome.COMPLETED, (client) -> client.complete(ref(), result), this::endedLease);
	}

	@Override
	public EndedLease release(String reason) {
		return end("release", LeaseOutcome.RELEASED, (client) -> client.release(ref(), reason), this::endedLease);
	}

	@Override
	public EndedLease cancel(String reason) {
		return end("cancel", LeaseOutcome.CANCELLED, (client) -> client.cancel(ref(), reason), this::endedLease);
	}

	@Override
	public Decomposed decompose(List<NewChild> children, String reason) {
		return end("decompose", LeaseOutcome.DECOMPOSED, (client) -> client.decompose(ref(), children, reason),
				this::decomposed);
	}

	@Override
	public AttentionRequest askHuman(NewAttentionRequest request) {
		if (request.blocking()) {
			return end("ask a human", LeaseOutcome.ATTENTION_REQUESTED,
					(client) -> client.requestAttention(ref(), request), this::raisedQuestion);
		}
		return whileHeld("ask a human", (client) -> client.requestAttention(ref(), request));
	}

	/**
	 * Sends a write that ends the lease: renewals stop while it is in flight; transient
	 * failures are retried within the lease's time; when an earlier attempt may have
	 * landed and a retry is refused, the service is asked how the lease ended, so that a
	 * write of our own whose answer was lost counts as done. The wait is not
	 * interruptible: an abandoned write would leave the outcome unknown.
	 */
	private <T> T end(String what, LeaseOutcome outcome, Function<WorkGraphClient, T> write,
			Function<Lease, T> recover) {
		synchronized (this) {
			requireHeld(what);
			this.state = State.ENDING;
			this.generation++;
			cancel(this.renewal);
		}
		boolean interrupted = false;
		boolean ambiguous = false;
		WorkGraphException lastFailure = null;
		try {
			for (int attempt = 1;; attempt++) {
				long remaining = remaining();
				if (remaining <= 0) {
					break;
				}
				try {
					T value = write.apply(boundedClient(remaining));
					ended(outcome);
					return value;
				}
				catch (LeaseRejected | NotFound refusal) {
					T ours = ambiguous ? ifOurs(outcome, recover) : null;
					if (ours != null) {
						ended(outcome);
						return ours;
					}
					throw lose(LeaseLost.Reason.REFUSED, "The service refused to " + what + ": " + refusal.getMessage(),
							refusal);
				}
				catch (RequestInterrupted ex) {
					// Someone interrupted this thread mid-request: the write may have
					// gone out.
					interrupted = true;
					Thread.interrupted();
					ambiguous = true;
					lastFailure = ex;
				}
				catch (WorkGraphException failure) {
					if (!failure.isTransient()) {
						resume();
						throw failure;
					}
					lastFailure = failure;
					ambiguous |= mayHaveBeenProcessed(failure);
					Duration retryIn = retryDelay(attempt, failure);
					Settings.LOG.log(DEBUG, "{0}: could not {1} ({2}); retrying in {3} ms", this, what,
							failure.getMessage(), retryIn.toMillis());
					this.settings.tell(() -> this.settings.listener().writeFailed(this, failure, retryIn));
					interrupted |= pause(retryIn, remaining());
				}
			}
			T ours = ambiguous ? ifOurs(outcome, recover) : null;
			if (ours != null) {
				ended(outcome);
				return ours;
			}
			throw lose(LeaseLost.Reason.RENEWALS_FAILED, "Could not " + what + " before the lease ran out"
					+ ((lastFailure != null) ? ": " + lastFailure.getMessage() : ""), lastFailure);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * A write that leaves the lease held (a non-blocking question). Retried only when it
	 * certainly was not processed, so that a lost answer never asks the question twice.
	 */
	private <T> T whileHeld(String what, Function<WorkGraphClient, T> write) {
		for (int attempt = 1;; attempt++) {
			synchronized (this) {
				requireHeld(what);
			}
			try {
				return write.apply(boundedClient(Math.max(1, remaining())));
			}
			catch (LeaseRejected | NotFound refusal) {
				throw lose(LeaseLost.Reason.REFUSED, "The service refused to " + what + ": " + refusal.getMessage(),
						refusal);
			}
			catch (WorkGraphException failure) {
				if (!failure.isTransient() || mayHaveBeenProcessed(failure) || remaining() <= 0) {
					throw failure;
				}
				if (pause(retryDelay(attempt, failure), remaining())) {
					Thread.currentThread().interrupt();
					throw failure;
				}
			}
		}
	}

	private void requireHeld(String what) {
		switch (this.state) {
			case LOST -> throw this.lostBecause.rethrown();
			case ENDED -> throw new IllegalStateException("Cannot " + what + ": this worker already ended the lease");
			case ENDING ->
				throw new IllegalStateException("Cannot " + what + ": another write ending the lease is in flight");
			default -> {
			}
		}
	}

	private void ended(LeaseOutcome outcome) {
		synchronized (this) {
			this.state = State.ENDED;
			cancel(this.renewal);
			cancel(this.watchdog);
		}
		this.settings.tell(() -> this.settings.listener().leaseEnded(this, outcome));
	}

	/** An ending write was refused for a reason other than the lease: keep holding it. */
	private synchronized void resume() {
		if (this.state != State.ENDING) {
			return;
		}
		this.state = State.ACTIVE;
		this.generation++;
		scheduleRenewal(this.clock.untilRenewal(this.settings.now()));
		scheduleWatchdog();
	}

	/**
	 * After an ambiguous write was refused: did the lease end the way the write would
	 * have ended it? Reads only.
	 */
	private <T> T ifOurs(LeaseOutcome outcome, Function<Lease, T> recover) {
		long deadline = this.settings.now() + OUTCOME_CHECK_WINDOW.toNanos();
		for (int attempt = 1;; attempt++) {
			try {
				Lease current = client().getLease(this.lease.id());
				if (current.outcome() != outcome || current.epoch() != this.lease.epoch()) {
					return null;
				}
				Settings.LOG.log(INFO,
						"{0}: an earlier attempt to end the lease landed ({1}) although its answer " + "was lost", this,
						outcome);
				return recover.apply(current);
			}
			catch (NotFound ex) {
				return null;
			}
			catch (WorkGraphException failure) {
				long left = deadline - this.settings.now();
				if (!failure.isTransient() || left <= 0) {
					Settings.LOG.log(WARNING, "{0}: could not learn whether an earlier write ended the lease: {1}",
							this, failure.getMessage());
					return null;
				}
				if (pause(retryDelay(attempt, failure), left)) {
					Thread.currentThread().interrupt();
				}
			}
		}
	}

	private EndedLease endedLease(Lease ended) {
		return new EndedLease(ended, readItem());
	}

	private Decomposed decomposed(Lease ended) {
		List<Item> children;
		try {
			children = client().items(ItemQuery.all().withParent(this.item.id()).withLimit(500)).toList();
		}
		catch (WorkGraphException ex) {
			children = List.of();
		}
		return new Decomposed(ended, readItem(), children);
	}

	private AttentionRequest raisedQuestion(Lease ended) {
		String cursor = null;
		do {
			AttentionRequestPage page = client()
				.listAttentionRequests(AttentionQuery.all().withItem(this.item.id()).withLimit(100).withCursor(cursor));
			for (AttentionRequest request : page.attentionRequests()) {
				if (ended.id().equals(request.leaseId()) && request.blocking()) {
					return request;
				}
			}
			cursor = page.nextCursor();
		}
		while (cursor != null);
		return null;
	}

	private Item readItem() {
		try {
			return client().getItem(this.item.id());
		}
		catch (WorkGraphException ex) {
			return this.item;
		}
	}

	// Renewals

	private void scheduleRenewal(long delayNanos) {
		cancel(this.renewal);
		long generation = this.generation;
		this.renewal = this.settings.scheduler()
			.schedule(() -> renew(generation), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
	}

	private void scheduleWatchdog() {
		cancel(this.watchdog);
		this.watchdog = this.settings.scheduler()
			.schedule(this::checkDeadline, Math.max(0, this.clock.remaining(this.settings.now())),
					TimeUnit.NANOSECONDS);
	}

	private void renew(long generation) {
		long sentAt;
		long remaining;
		synchronized (this) {
			if (this.state != State.ACTIVE || this.generation != generation) {
				return;
			}
			sentAt = this.settings.now();
			remaining = this.clock.remaining(sentAt);
		}
		if (remaining <= 0) {
			checkDeadline();
			return;
		}
		CompletableFuture<Lease> renewed;
		try {
			renewed = boundedClient(remaining).renewAsync(ref(), this.settings.leaseSeconds());
		}
		catch (RuntimeException ex) {
			renewed = CompletableFuture.failedFuture(ex);
		}
		renewed.whenComplete((lease, failure) -> renewed(generation, sentAt, lease, failure));
	}

	private void renewed(long generation, long sentAt, Lease renewed, Throwable failure) {
		LeaseLost lostNow = null;
		Duration retryIn = null;
		WorkGraphException renewalFailure = null;
		synchronized (this) {
			if (this.state != State.ACTIVE || this.generation != generation) {
				return;
			}
			if (failure == null) {
				this.lease = renewed;
				this.clock.confirmed(sentAt, lengthOf(renewed));
				this.renewalFailures = 0;
				scheduleRenewal(this.clock.untilRenewal(this.settings.now()));
				scheduleWatchdog();
				return;
			}
			Throwable cause = unwrap(failure);
			if (cause instanceof LeaseRejected || cause instanceof NotFound) {
				lostNow = loseLocked(LeaseLost.Reason.REFUSED,
						"The service refused to renew the lease: " + cause.getMessage(), cause);
			}
			else {
				renewalFailure = (cause instanceof WorkGraphException known) ? known
						: new ServiceUnreachable("Renewal failed: " + cause, cause, true, false);
				this.renewalFailures++;
				long now = this.settings.now();
				if (this.clock.expired(now)) {
					lostNow = loseLocked(LeaseLost.Reason.RENEWALS_FAILED,
							"No renewal succeeded for a whole lease length (" + this.clock.length().toMillis()
									+ " ms); the lease must be taken as expired. Last failure: " + cause.getMessage(),
							cause);
				}
				else {
					retryIn = retryDelay(this.renewalFailures, renewalFailure);
					long delay = Math.min(retryIn.toNanos(), Math.max(0, this.clock.remaining(now) - 1));
					retryIn = Duration.ofNanos(delay);
					scheduleRenewal(delay);
				}
			}
		}
		if (lostNow != null) {
			announce(lostNow);
		}
		else if (renewalFailure != null) {
			WorkGraphException reported = renewalFailure;
			Duration wait = retryIn;
			Settings.LOG.log(DEBUG, "{0}: renewal failed ({1}); retrying in {2} ms", this, reported.getMessage(),
					wait.toMillis());
			this.settings.tell(() -> this.settings.listener().renewalFailed(this, reported, wait));
		}
	}

	private void checkDeadline() {
		LeaseLost lostNow = null;
		synchronized (this) {
			if (this.state == State.ACTIVE && this.clock.expired(this.settings.now())) {
				lostNow = loseLocked(LeaseLost.Reason.RENEWALS_FAILED, "No renewal succeeded for a whole lease length ("
						+ this.clock.length().toMillis() + " ms); the lease must be taken as expired", null);
			}
		}
		if (lostNow != null) {
			announce(lostNow);
		}
	}

	// Losing the lease

	private LeaseLost lose(LeaseLost.Reason reason, String message, Throwable cause) {
		LeaseLost lostNow;
		synchronized (this) {
			if (this.state == State.LOST) {
				return this.lostBecause.rethrown();
			}
			lostNow = loseLocked(reason, message, cause);
		}
		announce(lostNow);
		return lostNow;
	}

	/**
	 * Marks the lease lost; {@link #announce} then tells the handler and the listener.
	 */
	private LeaseLost loseLocked(LeaseLost.Reason reason, String message, Throwable cause) {
		this.state = State.LOST;
		this.generation++;
		cancel(this.renewal);
		cancel(this.watchdog);
		this.lostBecause = new LeaseLost(this.lease.id(), reason, message, cause);
		return this.lostBecause;
	}

	/**
	 * Tells everyone, in this order: {@link #whenLost()} completes, then the handler's
	 * thread is interrupted (so that a handler woken by the interrupt finds the reason
	 * there), then the listener hears of it.
	 */
	private void announce(LeaseLost lostNow) {
		System.Logger.Level level = (lostNow.reason() == LeaseLost.Reason.WORKER_STOPPED) ? INFO : WARNING;
		Settings.LOG.log(level, "{0}: lease lost ({1}): {2}", this, lostNow.reason(), lostNow.getMessage());
		this.lost.complete(lostNow);
		synchronized (this) {
			// Under the lock: the thread is ours only while it runs this handler.
			if (this.handlerThread != null && this.handlerThread != Thread.currentThread()) {
				this.handlerThread.interrupt();
			}
		}
		this.settings.tell(() -> this.settings.listener().leaseLost(this, lostNow));
	}

	// Running the handler

	/**
	 * Runs the handler on the calling thread and settles the lease afterwards. When the
	 * handler's return value completes the item, the completion asks for the slot's next
	 * item as {@code nextClaims} says.
	 * @return the next item claimed with the completion, for this slot to work on; null
	 * if none
	 */
	Next run(ItemHandler handler, FailurePolicy policy, NextClaims nextClaims) {
		synchronized (this) {
			this.handlerThread = Thread.currentThread();
			if (this.state == State.LOST) {
				this.handlerThread.interrupt();
			}
		}
		try {
			Object result;
			try {
				result = handler.handle(this);
			}
			catch (LeaseLost ex) {
				return null;
			}
			catch (Exception | AssertionError | LinkageError failure) {
				failed(failure, policy);
				return null;
			}
			if (holds()) {
				try {
					return completeWithResult(result, nextClaims);
				}
				catch (LeaseLost ex) {
					// told already
				}
				catch (RequestRejected rejected) {
					failed(rejected, policy);
				}
				catch (WorkGraphException ex) {
					Settings.LOG.log(WARNING, "{0}: could not complete: {1}", this, ex.getMessage());
				}
			}
			else if (result != null) {
				Settings.LOG.log(DEBUG, "{0}: the handler's result was not sent: the lease is no longer held", this);
			}
			return null;
		}
		finally {
			LeaseLost abandoned = null;
			synchronized (this) {
				this.handlerThread = null;
				// An interrupt meant for this handler must not reach the thread's next
				// task.
				Thread.interrupted();
				if (this.state == State.ACTIVE) {
					abandoned = loseLocked(LeaseLost.Reason.ABANDONED,
							"The handler returned without ending the lease and it could not be ended for it; "
									+ "it is left to expire",
							null);
				}
			}
			if (abandoned != null) {
				announce(abandoned);
			}
		}
	}

	private synchronized boolean holds() {
		return this.state == State.ACTIVE;
	}

	/**
	 * Completes with the handler's result, settled like {@link #complete(Object)}; each
	 * attempt asks for the slot's next item if {@code nextClaims} says so at that moment
	 * (never once the worker is stopping). A refusal of {@code claimNext} itself (a
	 * service that predates it) is followed by the plain completion at once.
	 */
	private Next completeWithResult(Object result, NextClaims nextClaims) {
		Completed completed = end("complete", LeaseOutcome.COMPLETED, (client) -> {
			NextClaim next = nextClaims.nextClaim();
			if (next != null) {
				long sentAt = this.settings.now();
				try {
					CompletedWithNext answer = client.completeAndClaimNext(ref(), result, next);
					return new Completed(answer, true, sentAt, this.settings.now());
				}
				catch (ValidationFailed refused) {
					if (!nextClaims.refusedClaimNext(refused)) {
						throw refused;
					}
				}
			}
			return new Completed(withoutNext(client.complete(ref(), result)), false, 0, 0);
		}, (ended) -> new Completed(withoutNext(endedLease(ended)), false, 0, 0));
		if (!completed.askedNext()) {
			return null;
		}
		nextClaims.answered(completed.answer());
		return completed.answer()
			.next()
			.map((claim) -> new Next(claim, completed.sentAt(), completed.receivedAt()))
			.orElse(null);
	}

	private static CompletedWithNext withoutNext(EndedLease ended) {
		return new CompletedWithNext(ended.lease(), ended.item(), Optional.empty(), null);
	}

	private void failed(Throwable failure, FailurePolicy policy) {
		if (!holds()) {
			Settings.LOG.log(DEBUG, "{0}: the handler failed after the lease was lost: {1}", this, failure.toString());
			return;
		}
		Settings.LOG.log(WARNING, "{0}: the handler failed", this, failure);
		this.settings.tell(() -> this.settings.listener().handlerFailed(this, failure));
		HandlerFailure handlerFailure = new HandlerFailure(this, failure);
		FailureAction action;
		try {
			action = policy.decide(handlerFailure);
		}
		catch (RuntimeException ex) {
			Settings.LOG.log(WARNING, "{0}: the failure policy threw; releasing the item", this, ex);
			action = FailureAction.release(handlerFailure.summary());
		}
		try {
			if (action instanceof FailureAction.AskHuman ask) {
				askHuman(NewAttentionRequest.blocking(ask.question(), ask.context()));
			}
			else if (action instanceof FailureAction.Cancel cancel) {
				cancel(cancel.reason());
			}
			else if (action instanceof FailureAction.Release release) {
				release(release.reason());
			}
		}
		catch (LeaseLost ex) {
			// told already
		}
		catch (WorkGraphException | IllegalStateException ex) {
			Settings.LOG.log(WARNING, "{0}: could not act on the handler's failure: {1}", this, ex.getMessage());
		}
	}

	/**
	 * The worker is stopping and the handler did not finish in time: take the lease from
	 * the handler (it is interrupted and can send nothing more), then release it.
	 */
	void stopForShutdown(String reason) {
		LeaseLost lostNow;
		long remaining;
		synchronized (this) {
			if (this.state != State.ACTIVE) {
				return; // ended, lost, or an ending write of the handler's own is
						// finishing
			}
			lostNow = loseLocked(LeaseLost.Reason.WORKER_STOPPED,
					"The worker stopped before the handler finished; the lease was released", null);
			remaining = this.clock.remaining(this.settings.now());
		}
		announce(lostNow);
		for (int attempt = 1; remaining > 0; attempt++) {
			try {
				boundedClient(remaining).release(ref(), reason);
				return;
			}
			catch (LeaseRejected | NotFound ex) {
				return;
			}
			catch (WorkGraphException failure) {
				if (!failure.isTransient() || pause(retryDelay(attempt, failure), remaining())) {
					return;
				}
				remaining = remaining();
			}
		}
	}

	// Small parts

	private LeaseRef ref() {
		return this.lease.ref();
	}

	private synchronized long remaining() {
		return this.clock.remaining(this.settings.now());
	}

	/** The client with a request timeout that ends no later than the lease. */
	private WorkGraphClient boundedClient(long remainingNanos) {
		WorkGraphClient client = client();
		Duration remaining = Duration.ofNanos(Math.max(remainingNanos, 1_000_000));
		return (remaining.compareTo(client.requestTimeout()) < 0) ? client.withRequestTimeout(remaining) : client;
	}

	private Duration retryDelay(int attempt, WorkGraphException failure) {
		Duration retryAfter = (failure instanceof RequestRejected rejected) ? rejected.retryAfter().orElse(null) : null;
		return this.settings.retryBackoff().delay(attempt, retryAfter, this.settings.random());
	}

	/**
	 * Whether a failed write may have been carried out: a 429 was not; a connection that
	 * never opened was not; anything else (a timeout, a reset, a 503 or 500, which may
	 * come after a commit) may have been.
	 */
	private static boolean mayHaveBeenProcessed(WorkGraphException failure) {
		if (failure instanceof RateLimited) {
			return false;
		}
		if (failure instanceof ServiceUnreachable unreachable) {
			return unreachable.requestMayHaveBeenProcessed();
		}
		return true;
	}

	/**
	 * Sleeps without giving in to interrupts, at most {@code limitNanos}; tells whether
	 * the thread was interrupted meanwhile (the caller restores the flag).
	 */
	private static boolean pause(Duration delay, long limitNanos) {
		long until = System.nanoTime() + Math.max(0, Math.min(delay.toNanos(), limitNanos));
		boolean interrupted = false;
		for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
			LockSupport.parkNanos(left);
			interrupted |= Thread.interrupted();
		}
		return interrupted;
	}

	/**
	 * The length the service granted, from its own two timestamps; failing that, what was
	 * asked for, or the service's documented default.
	 */
	private Duration lengthOf(Lease lease) {
		Duration granted = lease.grantedLength();
		if (granted != null && !granted.isNegative() && !granted.isZero()) {
			return granted;
		}
		Integer asked = this.settings.leaseSeconds();
		return (asked != null) ? Duration.ofSeconds(asked) : DEFAULT_LENGTH;
	}

	private static void cancel(ScheduledFuture<?> task) {
		if (task != null) {
			task.cancel(false);
		}
	}

	private static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof java.util.concurrent.CompletionException
				|| cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	@Override
	public String toString() {
		return "lease " + this.lease.id() + " (epoch " + this.lease.epoch() + ") of item " + this.item.id();
	}

	/**
	 * What the completion with the handler's result sends as {@code claimNext}, and who
	 * hears how that went: the worker's claim loop.
	 */
	interface NextClaims {

		/** The {@code claimNext} to send with a completion now; null for none. */
		NextClaim nextClaim();

		/**
		 * Whether a refusal of a completion with {@code claimNext} is about
		 * {@code claimNext} itself; then the completion is sent again without it.
		 */
		boolean refusedClaimNext(ValidationFailed refusal);

		/**
		 * A completion with {@code claimNext} was answered (its next claim is handled).
		 */
		void answered(CompletedWithNext answer);

	}

	/**
	 * A claim made with a completion, and when that completion was sent and answered
	 * (monotonic nanoseconds): the lease began after the send.
	 */
	record Next(Claim claim, long sentAt, long receivedAt) {
	}

	/** The completion that counted, whether it asked for the next item, and its times. */
	private record Completed(CompletedWithNext answer, boolean askedNext, long sentAt, long receivedAt) {
	}

}
