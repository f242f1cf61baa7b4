package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.workgraph.client.AttentionRequest;
import dev.workgraph.client.Checkpoint;
import dev.workgraph.client.Decomposed;
import dev.workgraph.client.EndedLease;
import dev.workgraph.client.Item;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.LeaseRef;
import dev.workgraph.client.NewAttentionRequest;
import dev.workgraph.client.NewChild;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.problem.RequestRejected;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * One claimed item in a worker: the lease's state machine, and what the handler sees of
 * it. {@link Renewals} keeps the lease alive, {@link LeaseWrites} sends and settles its
 * writes, {@link HandlerRunner} runs the handler on it.
 *
 * <pre>
 * ACTIVE ──(own ending write starts)──▶ ENDING ──(write succeeded)──▶ ENDED
 *   │  ▲                                  │
 *   │  └──(write refused for another reason than the lease: e.g. open_children)
 *   └──(refused, out of time, worker stopped, handler gave up)──▶ LOST ◀──(refused, out of time)
 * </pre>
 *
 * Renewals run only in ACTIVE. In LOST nothing is sent for the lease any more, except the
 * runtime's own release when the worker stops.
 */
final class ActiveLease implements LeaseContext {

	/** Why a lease is lost when the service refuses the worker's token (said once). */
	static final String TOKEN_REFUSED = "The service refused the worker's token, and the worker stops; "
			+ "nothing more is sent for this lease";

	private enum State {

		ACTIVE, ENDING, ENDED, LOST

	}

	private final Settings settings;

	private final Item item;

	private volatile Lease lease;

	private final CompletableFuture<LeaseLost> lost = new CompletableFuture<>();

	private final Renewals renewals;

	private final LeaseWrites writes;

	/** The latest checkpoint: the claim's, then each the handler saved. */
	private volatile Checkpoint lastCheckpoint;

	// Guarded by this:

	private State state = State.ACTIVE;

	private LeaseLost lostBecause;

	private Thread handlerThread;

	ActiveLease(Settings settings, TimedClaim claim) {
		this.settings = settings;
		this.item = claim.claim().item();
		this.lease = claim.claim().lease();
		this.lastCheckpoint = this.item.checkpoint();
		this.renewals = new Renewals(this, settings, claim);
		this.writes = new LeaseWrites(this, settings);
	}

	/** Starts keeping the lease alive. */
	synchronized void start() {
		this.renewals.start();
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
		return Duration.ofNanos(Math.max(0, this.renewals.remaining()));
	}

	@Override
	public WorkGraphClient client() {
		return this.settings.client();
	}

	// Writes that end the lease

	@Override
	public EndedLease complete(Object result) {
		return this.writes.end("complete", LeaseOutcome.COMPLETED, (transport) -> transport.complete(ref(), result),
				this.writes::endedLease);
	}

	@Override
	public EndedLease release(String reason) {
		return this.writes.end("release", LeaseOutcome.RELEASED, (transport) -> transport.release(ref(), reason),
				this.writes::endedLease);
	}

	@Override
	public EndedLease cancel(String reason) {
		return this.writes.end("cancel", LeaseOutcome.CANCELLED, (transport) -> transport.cancel(ref(), reason),
				this.writes::endedLease);
	}

	@Override
	public EndedLease fail(Object error, boolean retryable) {
		return this.writes.end("fail", LeaseOutcome.FAILED, (transport) -> transport.fail(ref(), error, retryable),
				this.writes::endedLease);
	}

	@Override
	public Decomposed decompose(List<NewChild> children, String reason) {
		return this.writes.end("decompose", LeaseOutcome.DECOMPOSED,
				(transport) -> transport.decompose(ref(), children, reason), this.writes::decomposed);
	}

	@Override
	public AttentionRequest askHuman(NewAttentionRequest request) {
		if (request.blocking()) {
			return this.writes.end("ask a human", LeaseOutcome.ATTENTION_REQUESTED,
					(transport) -> transport.requestAttention(ref(), request), this.writes::raisedQuestion);
		}
		return this.writes.whileHeld("ask a human", (transport) -> transport.requestAttention(ref(), request));
	}

	// Writes that keep the lease

	@Override
	public Checkpoint checkpoint(Object data) {
		Checkpoint saved = this.writes.whileHeld("save a checkpoint", (transport) -> transport.checkpoint(ref(), data))
			.checkpoint();
		this.lastCheckpoint = saved;
		return saved;
	}

	@Override
	public Checkpoint lastCheckpoint() {
		return this.lastCheckpoint;
	}

	// The state machine

	/** Whether the lease is held, with no ending write in flight. */
	synchronized boolean holds() {
		return this.state == State.ACTIVE;
	}

	/** An ending write of this worker starts: nothing else may be sent meanwhile. */
	synchronized void beginEnding(String what) {
		requireHeld(what);
		this.state = State.ENDING;
		this.renewals.pause();
	}

	synchronized void requireHeld(String what) {
		switch (this.state) {
			case LOST -> throw this.lostBecause.rethrown();
			case ENDED -> throw new IllegalStateException("Cannot " + what + ": this worker already ended the lease");
			case ENDING ->
				throw new IllegalStateException("Cannot " + what + ": another write ending the lease is in flight");
			default -> {
			}
		}
	}

	/** The ending write succeeded. */
	void ended(LeaseOutcome outcome) {
		synchronized (this) {
			this.state = State.ENDED;
			this.renewals.stop();
		}
		this.settings.tell(() -> this.settings.listener().leaseEnded(this, outcome));
	}

	/** An ending write was refused for a reason other than the lease: keep holding it. */
	synchronized void resume() {
		if (this.state != State.ENDING) {
			return;
		}
		this.state = State.ACTIVE;
		this.renewals.resume();
	}

	/** A renewal succeeded (under this lease's monitor). */
	void renewed(Lease renewed) {
		this.lease = renewed;
	}

	/** Nanoseconds until the lease must be taken as expired (negative once past). */
	synchronized long remaining() {
		return this.renewals.remaining();
	}

	/**
	 * Loses the lease, tells everyone, and returns the reason for the caller to throw.
	 */
	LeaseLost lose(LeaseLost.Reason reason, String message, Throwable cause) {
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
	 * The service refused the worker's token for a request of this lease: the worker
	 * stops, and nothing more can be sent for the lease.
	 */
	LeaseLost tokenRefused(RequestRejected refusal) {
		this.settings.tokenRefused().accept(refusal);
		return lose(LeaseLost.Reason.REFUSED, TOKEN_REFUSED, refusal);
	}

	/**
	 * Marks the lease lost (the caller holds this monitor); {@link #announce} then tells
	 * the handler and the listener.
	 */
	LeaseLost loseLocked(LeaseLost.Reason reason, String message, Throwable cause) {
		this.state = State.LOST;
		this.renewals.stop();
		this.lostBecause = new LeaseLost(this.lease.id(), reason, message, cause);
		return this.lostBecause;
	}

	/**
	 * Tells everyone, in this order: {@link #whenLost()} completes, then the handler's
	 * thread is interrupted (so that a handler woken by the interrupt finds the reason
	 * there), then the listener hears of it.
	 */
	void announce(LeaseLost lostNow) {
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

	// The handler's thread

	/** The handler starts on the calling thread (interrupted at once if already lost). */
	synchronized void handlerStarted() {
		this.handlerThread = Thread.currentThread();
		if (this.state == State.LOST) {
			this.handlerThread.interrupt();
		}
	}

	/**
	 * The handler and whatever was sent for it are done: the thread is no longer this
	 * lease's, and a lease still held now is abandoned.
	 */
	void handlerDone() {
		LeaseLost abandoned = null;
		synchronized (this) {
			this.handlerThread = null;
			// An interrupt meant for this handler must not reach the thread's next task.
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

	/**
	 * The worker is stopping and the handler did not finish in time: take the lease from
	 * the handler (it is interrupted and can send nothing more), then release it.
	 */
	void stopForShutdown(String reason) {
		LeaseLost lostNow;
		synchronized (this) {
			if (this.state != State.ACTIVE) {
				return; // ended, lost, or an ending write of the handler's own is
						// finishing
			}
			lostNow = loseLocked(LeaseLost.Reason.WORKER_STOPPED,
					"The worker stopped before the handler finished; the lease was released", null);
		}
		announce(lostNow);
		this.writes.releaseTakenLease(reason);
	}

	// Small parts

	LeaseRef ref() {
		return this.lease.ref();
	}

	Settings settings() {
		return this.settings;
	}

	LeaseWrites writes() {
		return this.writes;
	}

	@Override
	public String toString() {
		return "lease " + this.lease.id() + " (epoch " + this.lease.epoch() + ") of item " + this.item.id();
	}

}
