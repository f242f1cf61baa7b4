package dev.workgraph.client.worker;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.workgraph.client.AttentionRequest;
import dev.workgraph.client.Claim;
import dev.workgraph.client.ClaimRequest;
import dev.workgraph.client.CompletedWithNext;
import dev.workgraph.client.Decomposed;
import dev.workgraph.client.EndedLease;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseRef;
import dev.workgraph.client.NewAttentionRequest;
import dev.workgraph.client.NewChild;
import dev.workgraph.client.NextClaim;
import dev.workgraph.client.SavedCheckpoint;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.WorkerStream;
import dev.workgraph.client.problem.RequestInterrupted;
import dev.workgraph.client.problem.ServiceUnreachable;
import dev.workgraph.client.problem.WorkGraphException;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.INFO;

/**
 * The transport over the worker stream (docs/worker-stream.md): one WebSocket for the
 * worker, opened by its first claim. A claim gives the service one credit and is answered
 * by the next lease it pushes; renewals and lease writes go over the stream while it is
 * open, and over HTTP while it is not (so a dropped stream costs no lease). When the
 * service, or a proxy before it, does not upgrade to a WebSocket, the worker uses
 * {@link HttpTransport} from then on, long polls and all; a worker that polls
 * ({@code waitSeconds(0)}) claims over HTTP too, since a stream never answers "nothing
 * ready". Decompositions and questions always go over HTTP.
 */
final class StreamTransport implements Transport {

	private static final AtomicBoolean FALLBACK_ANNOUNCED = new AtomicBoolean();

	/** The reason given when a pushed lease finds no claim waiting for it. */
	static final String UNWANTED = "no handler slot was free for it";

	private final Link link;

	private final Duration timeout;

	StreamTransport(WorkGraphClient client) {
		this(new Link(client), client.requestTimeout());
	}

	private StreamTransport(Link link, Duration timeout) {
		this.link = link;
		this.timeout = timeout;
	}

	@Override
	public Transport within(Duration timeout) {
		return (timeout.compareTo(this.timeout) < 0) ? new StreamTransport(this.link, timeout) : this;
	}

	private HttpTransport http() {
		return (HttpTransport) this.link.http.within(this.timeout);
	}

	@Override
	public CompletableFuture<Optional<Claim>> claim(ClaimRequest request) {
		if (request.waitSeconds() == null || request.waitSeconds() == 0 || this.link.unavailable) {
			return this.link.http.claim(request);
		}
		try {
			return this.link.claim(request, this.timeout);
		}
		catch (WorkerStream.StreamUnavailable ex) {
			Settings.LOG.log(FALLBACK_ANNOUNCED.getAndSet(true) ? DEBUG : INFO,
					"The worker stream is not available ({0}); claiming with HTTP long polls instead", ex.getMessage());
			return this.link.http.claim(request);
		}
	}

	@Override
	public CompletableFuture<Lease> renew(LeaseRef lease, Integer leaseSeconds) {
		WorkerStream stream = this.link.open();
		return (stream != null) ? stream.renew(lease, leaseSeconds)
			.orTimeout(this.timeout.toMillis(), TimeUnit.MILLISECONDS)
			.exceptionallyCompose(StreamTransport::timedOut) : http().renew(lease, leaseSeconds);
	}

	@Override
	public EndedLease complete(LeaseRef lease, Object result) {
		return over((stream) -> stream.complete(lease, result), () -> http().complete(lease, result));
	}

	@Override
	public CompletedWithNext completeAndClaimNext(LeaseRef lease, Object result, NextClaim next) {
		return over((stream) -> stream.completeAndClaimNext(lease, result, next),
				() -> http().completeAndClaimNext(lease, result, next));
	}

	@Override
	public EndedLease release(LeaseRef lease, String reason) {
		return over((stream) -> stream.release(lease, reason), () -> http().release(lease, reason));
	}

	@Override
	public EndedLease cancel(LeaseRef lease, String reason) {
		return over((stream) -> stream.cancel(lease, reason), () -> http().cancel(lease, reason));
	}

	@Override
	public Decomposed decompose(LeaseRef lease, List<NewChild> children, String reason) {
		return http().decompose(lease, children, reason);
	}

	@Override
	public AttentionRequest requestAttention(LeaseRef lease, NewAttentionRequest request) {
		return http().requestAttention(lease, request);
	}

	@Override
	public SavedCheckpoint checkpoint(LeaseRef lease, Object data) {
		return over((stream) -> stream.checkpoint(lease, data, null), () -> http().checkpoint(lease, data));
	}

	@Override
	public EndedLease fail(LeaseRef lease, Object error, boolean retryable) {
		return over((stream) -> stream.fail(lease, error, retryable), () -> http().fail(lease, error, retryable));
	}

	@Override
	public void close() {
		this.link.close();
	}

	/** Over the stream while it is open, else over HTTP; answered within the timeout. */
	private <T> T over(Function<WorkerStream, CompletableFuture<T>> streamed, Supplier<T> overHttp) {
		WorkerStream stream = this.link.open();
		if (stream == null) {
			return overHttp.get();
		}
		return await(streamed.apply(stream), this.timeout);
	}

	static <T> T await(CompletableFuture<T> answer, Duration timeout) {
		try {
			return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RequestInterrupted("Interrupted while waiting for the worker stream's answer", ex);
		}
		catch (TimeoutException ex) {
			throw new ServiceUnreachable("The worker stream did not answer within " + timeout, ex, true, true);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof WorkGraphException known) {
				throw known;
			}
			throw new ServiceUnreachable("The worker stream failed: " + ex.getCause(), ex.getCause(), true, false);
		}
	}

	private static <T> CompletableFuture<T> timedOut(Throwable failure) {
		Throwable cause = (failure instanceof java.util.concurrent.CompletionException) ? failure.getCause() : failure;
		if (cause instanceof TimeoutException) {
			return CompletableFuture
				.failedFuture(new ServiceUnreachable("The worker stream did not answer in time", cause, true, true));
		}
		return CompletableFuture.failedFuture(cause);
	}

	/**
	 * The worker's one stream, shared by every view of the transport: opened by a claim,
	 * given up for good when the service cannot upgrade, and the claims waiting for a
	 * pushed lease, oldest first.
	 */
	static final class Link {

		private final WorkGraphClient client;

		private final HttpTransport http;

		/** Guarded by this. */
		private WorkerStream stream;

		/** Guarded by this: the claims waiting for a lease, oldest first. */
		private final ArrayDeque<CompletableFuture<Optional<Claim>>> waiting = new ArrayDeque<>();

		/** Guarded by this. */
		private boolean closed;

		volatile boolean unavailable;

		Link(WorkGraphClient client) {
			this.client = client;
			this.http = new HttpTransport(client);
		}

		/** The stream when it is open, else null. */
		synchronized WorkerStream open() {
			return (this.stream != null && this.stream.isOpen()) ? this.stream : null;
		}

		CompletableFuture<Optional<Claim>> claim(ClaimRequest request, Duration timeout) {
			WorkerStream stream = connected(request, timeout);
			CompletableFuture<Optional<Claim>> claim = new CompletableFuture<>();
			synchronized (this) {
				if (stream != this.stream || !stream.isOpen()) {
					// Closed meanwhile: claim again, on a new stream.
					throw new ServiceUnreachable("The worker stream closed", null, false, false);
				}
				this.waiting.add(claim);
			}
			claim.whenComplete((granted, failure) -> {
				if (claim.isCancelled() && withdrawn(claim)) {
					// Called off (the worker stops): the credit is taken back; a lease
					// already on its way is released when it arrives.
					stream.credit(-1);
				}
			});
			stream.credit(1);
			return claim;
		}

		private synchronized boolean withdrawn(CompletableFuture<Optional<Claim>> claim) {
			return this.waiting.remove(claim);
		}

		/**
		 * The open stream, opened (and said hello on) now if there is none. The first
		 * claim's settings are the stream's: a worker sends the same claim every time.
		 */
		private synchronized WorkerStream connected(ClaimRequest request, Duration timeout) {
			if (this.closed) {
				throw new ServiceUnreachable("The worker is stopping", null, false, false);
			}
			if (this.stream != null && this.stream.isOpen()) {
				return this.stream;
			}
			AtomicReference<WorkerStream> opened = new AtomicReference<>();
			WorkerStream stream;
			try {
				stream = WorkerStream.open(this.client, (claim) -> pushed(opened.get(), claim));
			}
			catch (WorkerStream.StreamUnavailable ex) {
				this.unavailable = true;
				throw ex;
			}
			opened.set(stream);
			try {
				await(stream.hello(request.workerId(), request.queues(), request.leaseSeconds()), timeout);
			}
			catch (WorkGraphException ex) {
				stream.close();
				throw ex;
			}
			stream.whenClosed().thenAccept((why) -> closed(stream, why));
			this.stream = stream;
			return stream;
		}

		/** A lease pushed: the oldest waiting claim takes it, or it goes back. */
		private void pushed(WorkerStream from, Claim claim) {
			CompletableFuture<Optional<Claim>> taker;
			synchronized (this) {
				taker = this.waiting.poll();
			}
			if (taker == null || !taker.complete(Optional.of(claim))) {
				CompletableFuture.runAsync(() -> {
					try {
						this.http.release(claim.lease(), UNWANTED);
					}
					catch (WorkGraphException ex) {
						Settings.LOG.log(DEBUG, "Could not release unwanted lease {0}: {1}", claim.lease().id(),
								ex.getMessage());
					}
				});
			}
		}

		/** The stream closed: the claims waiting on it fail, and are made again. */
		private void closed(WorkerStream stream, WorkGraphException why) {
			List<CompletableFuture<Optional<Claim>>> failed;
			synchronized (this) {
				if (this.stream != stream) {
					return;
				}
				this.stream = null;
				failed = List.copyOf(this.waiting);
				this.waiting.clear();
			}
			failed.forEach((claim) -> claim.completeExceptionally(why));
		}

		void close() {
			WorkerStream open;
			synchronized (this) {
				this.closed = true;
				open = this.stream;
			}
			if (open != null) {
				open.close();
			}
		}

	}

}
