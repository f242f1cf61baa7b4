package dev.workgraph.client;

import java.net.URI;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.workgraph.client.problem.Problem;
import dev.workgraph.client.problem.RequestRejected;
import dev.workgraph.client.problem.ServiceUnreachable;
import dev.workgraph.client.problem.Unauthenticated;
import dev.workgraph.client.problem.WorkGraphException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The worker stream ({@code /worker-stream}, docs/worker-stream.md): one WebSocket per
 * worker process over which the service pushes leases as the worker's credits allow, and
 * the worker sends its renewals and lease writes, each answered as its HTTP request would
 * be. The worker runtime uses it by default; this class is for those who write their own.
 *
 * <p>
 * Every write returns a future that completes with what the HTTP call returns, or fails
 * with the same {@link WorkGraphException}; when the stream closes, the writes in flight
 * fail with {@link ServiceUnreachable} (they may have been done: settle them as a lost
 * answer is settled), or with {@link Unauthenticated} when it closed because its token
 * was revoked.
 */
public final class WorkerStream implements AutoCloseable {

	/** The close code the service sends when the stream's token was revoked. */
	public static final int TOKEN_REVOKED = 4401;

	private static final String PATH = "/worker-stream";

	private final Map<String, Pending> answers = new ConcurrentHashMap<>();

	private final AtomicLong refs = new AtomicLong();

	private final CompletableFuture<WorkGraphException> closed = new CompletableFuture<>();

	private final Consumer<Claim> leases;

	private volatile WebSocket socket;

	private WorkerStream(Consumer<Claim> leases) {
		this.leases = leases;
	}

	/**
	 * Opens the stream with the client's address and token. {@code leases} is told of
	 * every lease the service pushes (on the stream's receiving thread: return quickly).
	 * @throws StreamUnavailable when the service (or a proxy before it) answers the
	 * upgrade with anything but a WebSocket: use the HTTP endpoints instead
	 * @throws Unauthenticated when the token is refused,
	 * {@link dev.workgraph.client.problem.Forbidden} when it is not a worker's
	 * @throws ServiceUnreachable when no connection could be made
	 */
	public static WorkerStream open(WorkGraphClient client, Consumer<Claim> leases) {
		Http http = client.http();
		URI uri = URI.create(http.base().replaceFirst("^http", "ws") + PATH);
		WorkerStream stream = new WorkerStream(Objects.requireNonNull(leases, "leases"));
		WebSocket.Builder builder = http.httpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
		String bearer = http.bearer();
		if (bearer != null) {
			builder.header("Authorization", "Bearer " + bearer);
		}
		try {
			stream.socket = builder.buildAsync(uri, stream.new Receiver()).get(30, TimeUnit.SECONDS);
			return stream;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ServiceUnreachable("Interrupted while opening the worker stream", ex, false, false);
		}
		catch (TimeoutException ex) {
			throw new ServiceUnreachable("Opening the worker stream timed out", ex, false, true);
		}
		catch (ExecutionException ex) {
			throw refusal(ex.getCause());
		}
	}

	private static WorkGraphException refusal(Throwable cause) {
		if (cause instanceof WebSocketHandshakeException refused) {
			int status = refused.getResponse().statusCode();
			Problem problem = problemOf(status, refused.getResponse().body());
			if (status == 401 || status == 403) {
				return RequestRejected.of(problem, null);
			}
			if (status == 502 || status == 503 || status == 504) {
				return new ServiceUnreachable(problem.detail(), refused, false, false);
			}
			return new StreamUnavailable(problem.detail(), refused);
		}
		return new ServiceUnreachable("Could not open the worker stream: " + cause, cause, false, false);
	}

	/** The problem a refused upgrade answered, or one that says what came back. */
	private static Problem problemOf(int status, Object body) {
		if (body instanceof String text && text.startsWith("{")) {
			try {
				if (Json.MAPPER.readTree(text) instanceof ObjectNode json && json.has("code")) {
					return Problem.fromJson(json);
				}
			}
			catch (RuntimeException ex) {
				// not a problem document: a proxy's page, say
			}
		}
		return Problem.synthesized(status, null, "The worker stream's upgrade answered " + status
				+ ((body instanceof String text && !text.isEmpty()) ? ": " + text : ""));
	}

	/**
	 * {@code hello}: the worker the pushed leases are for (null: the token's), their
	 * queues (null: all, or the token's) and lease length (null: the service's default).
	 */
	public CompletableFuture<JsonNode> hello(String workerId, List<String> queues, Integer leaseSeconds) {
		return request("hello", null,
				Body.of("workerId", workerId).with("queues", queues).with("leaseSeconds", leaseSeconds),
				Json.type(JsonNode.class));
	}

	/** The worker can take {@code credits} more leases (fewer, when negative). */
	public void credit(int credits) {
		send(Json.MAPPER.writeValueAsString(Map.of("type", "credit", "credits", credits)));
	}

	public CompletableFuture<Lease> renew(LeaseRef lease, Integer leaseSeconds) {
		return request("renew", lease, Body.of("epoch", lease.epoch()).with("leaseSeconds", leaseSeconds), Json.LEASE);
	}

	public CompletableFuture<EndedLease> complete(LeaseRef lease, Object result) {
		return request("complete", lease, Body.fenced(lease, "result", result), Json.ENDED);
	}

	public CompletableFuture<CompletedWithNext> completeAndClaimNext(LeaseRef lease, Object result, NextClaim next) {
		return request("complete", lease,
				Body.fenced(lease, "result", result).with("claimNext", Objects.requireNonNull(next, "next")),
				Json.type(CompletedWithNext.class));
	}

	public CompletableFuture<EndedLease> release(LeaseRef lease, String reason) {
		return request("release", lease, Body.fenced(lease, "reason", reason), Json.ENDED);
	}

	public CompletableFuture<EndedLease> cancel(LeaseRef lease, String reason) {
		return request("cancel", lease, Body.fenced(lease, "reason", reason), Json.ENDED);
	}

	public CompletableFuture<EndedLease> fail(LeaseRef lease, Object error, Boolean retryable) {
		return request("fail", lease, Body.fenced(lease, "error", error).with("retryable", retryable), Json.ENDED);
	}

	public CompletableFuture<SavedCheckpoint> checkpoint(LeaseRef lease, Object data, Integer renewSeconds) {
		return request("checkpoint", lease, Body.fenced(lease, "data", data).with("renewSeconds", renewSeconds),
				Json.type(SavedCheckpoint.class));
	}

	/** Whether the stream is still open. */
	public boolean isOpen() {
		return !this.closed.isDone();
	}

	/**
	 * Completes when the stream closed, with why: {@link Unauthenticated} when its token
	 * was revoked, else {@link ServiceUnreachable}.
	 */
	public CompletableFuture<WorkGraphException> whenClosed() {
		return this.closed;
	}

	@Override
	public void close() {
		WebSocket open = this.socket;
		if (open != null && !open.isOutputClosed()) {
			open.sendClose(WebSocket.NORMAL_CLOSURE, "worker stopped")
				.orTimeout(5, TimeUnit.SECONDS)
				.exceptionally((ex) -> {
					open.abort();
					return null;
				});
		}
		closed(new ServiceUnreachable("The worker stream was closed", null, true, false));
	}

	/**
	 * Cuts the connection at once, without a closing handshake (for tests of failures).
	 */
	public void abort() {
		WebSocket open = this.socket;
		if (open != null) {
			open.abort();
		}
		closed(new ServiceUnreachable("The worker stream was cut", null, true, false));
	}

	private <T> CompletableFuture<T> request(String type, LeaseRef lease, Body body, JavaType answer) {
		String ref = Long.toString(this.refs.incrementAndGet());
		CompletableFuture<T> future = new CompletableFuture<>();
		@SuppressWarnings("unchecked")
		CompletableFuture<Object> untyped = (CompletableFuture<Object>) (CompletableFuture<?>) future;
		this.answers.put(ref, new Pending(answer, untyped));
		Map<String, Object> message = new LinkedHashMap<>();
		message.put("type", type);
		message.put("ref", ref);
		if (lease != null) {
			message.put("leaseId", lease.id().toString());
		}
		message.put("body", body);
		if (!this.closed.isDone()) {
			send(Json.MAPPER.writeValueAsString(message));
		}
		WorkGraphException gone = this.closed.getNow(null);
		if (gone != null && this.answers.remove(ref) != null) {
			future.completeExceptionally(gone);
		}
		return future;
	}

	private void send(String text) {
		WebSocket open = this.socket;
		// The JDK client allows one outstanding send at a time: sends are serialized.
		synchronized (this) {
			try {
				open.sendText(text, true).join();
			}
			catch (CompletionException | IllegalStateException ex) {
				closed(new ServiceUnreachable("The worker stream closed: " + ex.getMessage(), ex, true, false));
			}
		}
	}

	private void closed(WorkGraphException why) {
		this.closed.complete(why);
		WorkGraphException reason = this.closed.getNow(why);
		for (String ref : List.copyOf(this.answers.keySet())) {
			Pending pending = this.answers.remove(ref);
			if (pending != null) {
				pending.future().completeExceptionally(reason);
			}
		}
	}

	private void received(JsonNode message) {
		String type = message.path("type").asString();
		if ("lease".equals(type)) {
			this.leases.accept(Json.MAPPER.treeToValue(message, Claim.class));
			return;
		}
		if (!"answer".equals(type)) {
			return; // a newer service may say more
		}
		Pending pending = message.hasNonNull("ref") ? this.answers.remove(message.get("ref").asString()) : null;
		if (pending == null) {
			return;
		}
		int status = message.path("status").asInt();
		if (status >= 200 && status < 300) {
			try {
				pending.future().complete(Json.MAPPER.treeToValue(message.get("body"), pending.type()));
			}
			catch (RuntimeException ex) {
				pending.future().completeExceptionally(ex);
			}
		}
		else {
			JsonNode problem = message.get("problem");
			Problem parsed = (problem instanceof ObjectNode object) ? Problem.fromJson(object)
					: Problem.synthesized(status, null, "The worker stream answered " + status);
			pending.future().completeExceptionally(RequestRejected.of(parsed, null));
		}
	}

	private record Pending(JavaType type, CompletableFuture<Object> future) {
	}

	private final class Receiver implements WebSocket.Listener {

		private final StringBuilder text = new StringBuilder();

		@Override
		public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
			this.text.append(data);
			if (last) {
				String whole = this.text.toString();
				this.text.setLength(0);
				try {
					received(Json.MAPPER.readTree(whole));
				}
				catch (RuntimeException ex) {
					System.getLogger(WorkerStream.class.getName())
						.log(System.Logger.Level.WARNING, "Ignoring a worker stream message: {0}", ex.toString());
				}
			}
			webSocket.request(1);
			return null;
		}

		@Override
		public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
			closed((statusCode == TOKEN_REVOKED)
					? new Unauthenticated(
							Problem.synthesized(401, "unauthenticated", "The worker stream closed: " + reason), null)
					: new ServiceUnreachable("The worker stream closed (" + statusCode + " " + reason + ")", null, true,
							false));
			return null;
		}

		@Override
		public void onError(WebSocket webSocket, Throwable error) {
			closed(new ServiceUnreachable("The worker stream failed: " + error, error, true, false));
		}

	}

	/**
	 * The service, or a proxy before it, does not serve the worker stream (its upgrade
	 * was answered with something else than a WebSocket): use the HTTP endpoints.
	 */
	public static final class StreamUnavailable extends WorkGraphException {

		StreamUnavailable(String message, Throwable cause) {
			super(message, cause);
		}

	}

}
