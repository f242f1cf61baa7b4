package dev.workgraph.chaos;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.MissingNode;

/**
 * One worker stream (docs/worker-stream.md) as the harness speaks it: the JDK's own
 * WebSocket, so that what is judged is the wire, not the production client. Every request
 * message and its {@code answer} is recorded in the {@link History} as an
 * {@link Exchange}, exactly as an HTTP request and its response (method {@code WS}, path
 * {@code ws:<type> /leases/<id>}); every pushed lease is recorded as a
 * {@link Op#STREAM_GRANT}. When the connection ends, each request still unanswered is
 * recorded as {@linkplain Exchange#NO_ANSWER unanswered}, and so is each lease its
 * credits could still have been granted (given, not yet pushed): the checker counts those
 * as claims whose answer was lost.
 */
final class StreamConnection implements WebSocket.Listener {

	private static final HttpClient HTTP = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(2))
		.build();

	private final History history;

	private final String workerId;

	private final int instance;

	private final Duration timeout;

	private final Map<Long, Pending> pending = new ConcurrentHashMap<>();

	/** Leases pushed and recorded, for the worker to take. */
	private final BlockingQueue<Pushed> pushed = new LinkedBlockingQueue<>();

	private final StringBuilder partial = new StringBuilder();

	private WebSocket socket;

	/** Guarded by this. */
	private boolean dead;

	/**
	 * Guarded by this: credits given, leases pushed, and when credit total k was reached.
	 */
	private long creditsGiven;

	/** Guarded by this. */
	private long pushes;

	/** Guarded by this: [sent nanos, credits given in all after it]. */
	private final List<long[]> creditTimes = new ArrayList<>();

	private StreamConnection(History history, String workerId, int instance, Duration timeout) {
		this.history = history;
		this.workerId = workerId;
		this.instance = instance;
		this.timeout = timeout;
	}

	/**
	 * Opens a stream to the instance as the worker (its token, null without access
	 * control); null when it cannot be opened (the instance is down, say).
	 */
	static StreamConnection open(History history, ServiceInstance target, int instance, String workerId, String token,
			Duration timeout) {
		StreamConnection connection = new StreamConnection(history, workerId, instance, timeout);
		WebSocket.Builder builder = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(2));
		if (token != null) {
			builder.header("Authorization", "Bearer " + token);
		}
		try {
			connection.socket = builder
				.buildAsync(URI.create(target.base().replace("http://", "ws://") + "/worker-stream"), connection)
				.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
			return connection;
		}
		catch (ExecutionException | TimeoutException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	int instance() {
		return this.instance;
	}

	synchronized boolean dead() {
		return this.dead;
	}

	/** Credits given that no pushed lease has used yet. */
	synchronized long outstandingCredits() {
		return this.creditsGiven - this.pushes;
	}

	/** A lease pushed since, waiting up to {@code millis}; null when none came. */
	Pushed nextPush(long millis) {
		try {
			return this.pushed.poll(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	/**
	 * {@code hello}: claims for this worker from these queues with leases of this length.
	 * Set-up, not recorded; the answer's status (200 when it holds).
	 */
	int hello(List<String> queues, int leaseSeconds) {
		Map<String, Object> body = Map.of("workerId", this.workerId, "queues", queues, "leaseSeconds", leaseSeconds);
		long ref = this.history.nextSeq();
		Pending wait = pending(ref);
		if (!sendText(Client.JSON.writeValueAsString(Map.of("type", "hello", "ref", ref, "body", body)), true)) {
			return Exchange.NO_ANSWER;
		}
		JsonNode answer = await(wait);
		if (answer == null) {
			return wait.future.isDone() ? Exchange.NO_ANSWER : Exchange.TIMED_OUT;
		}
		return answer.path("status").asInt();
	}

	/** The worker can take {@code credits} more leases. */
	void credit(int credits) {
		synchronized (this) {
			if (this.dead) {
				return;
			}
			this.creditsGiven += credits;
			this.creditTimes.add(new long[] { System.nanoTime(), this.creditsGiven });
		}
		sendText(Client.JSON.writeValueAsString(Map.of("type", "credit", "credits", credits)), true);
	}

	/**
	 * Sends a lease write and waits for its answer, recorded as the HTTP request it
	 * stands for would be.
	 */
	Client.Reply write(Write write) {
		Sent sent = send(write);
		return answer(sent);
	}

	/** Sends a lease write without waiting (see {@link #answer(Sent)}). */
	Sent send(Write write) {
		long seq = this.history.nextSeq();
		Pending wait = pending(seq);
		Map<String, Object> message = new LinkedHashMap<>();
		message.put("type", write.type());
		message.put("ref", seq);
		message.put("leaseId", write.leaseId().toString());
		message.put("body", write.body());
		Instant sentAt = Instant.now();
		long sentNanos = System.nanoTime();
		sendText(Client.JSON.writeValueAsString(message), true);
		return new Sent(seq, write, wait, sentAt, sentNanos);
	}

	/** Waits for a write's answer and records it (and the lease a completion brought). */
	Client.Reply answer(Sent sent) {
		JsonNode answer = await(sent.pending());
		long received = System.nanoTime();
		Write write = sent.write();
		int status;
		String failure = null;
		if (answer == null) {
			status = sent.pending().future.isDone() ? Exchange.NO_ANSWER : Exchange.TIMED_OUT;
			failure = (status == Exchange.NO_ANSWER) ? "the stream closed before the answer"
					: "no answer on the stream";
			this.pending.remove(sent.seq());
		}
		else {
			status = answer.path("status").asInt();
		}
		JsonNode body = (answer != null) ? answer.path("body") : MissingNode.getInstance();
		JsonNode problem = (answer != null) ? answer.path("problem") : MissingNode.getInstance();
		String code = (status >= 400) ? problem.path("code").asString(null) : null;
		String outcome = null;
		if (write.op().succeeded(status)) {
			JsonNode lease = body.has("lease") ? body.path("lease") : body;
			outcome = lease.path("outcome").asString(null);
		}
		Exchange exchange = new Exchange(sent.seq(), this.workerId, write.op(), this.instance, "WS",
				"ws:" + write.type() + " /leases/" + write.leaseId(), write.leaseId(), write.itemId(), write.epoch(),
				write.stale(), null, sent.sentNanos(), received, sent.sentAt(), status, code, outcome, failure,
				(write.op() == Op.CHECKPOINT && status == 201)
						? Exchange.Facts.checkpoint(body.path("checkpoint").path("seq").asLong())
						: Exchange.Facts.NONE);
		this.history.recordMessage(exchange, problem.isMissingNode() ? null : problem.toString());
		List<Client.Reply> next = new ArrayList<>();
		if (write.claimsNext()) {
			if (status == 200 && body.path("next").isObject()) {
				next.add(new Client.Reply(
						grant(body.path("next"), sent.sentNanos(), received, sent.sentAt(), "ws:complete next"),
						body.path("next"), List.of()));
			}
			else if (exchange.unavailable()) {
				next.add(new Client.Reply(
						unansweredGrant(sent.sentNanos(), received, sent.sentAt(),
								"ws:complete next (the completion's answer was " + exchange.statusText() + ")"),
						MissingNode.getInstance(), List.of()));
			}
		}
		return new Client.Reply(exchange, body, next);
	}

	/**
	 * Cuts the connection in the middle of a message: the first half of a write goes out
	 * as a fragment, its end never does. The write may not be acted on.
	 */
	void cutMidMessage(Write write) {
		Map<String, Object> message = new LinkedHashMap<>();
		message.put("type", write.type());
		message.put("ref", -1);
		message.put("leaseId", write.leaseId().toString());
		message.put("body", write.body());
		String text = Client.JSON.writeValueAsString(message);
		sendText(text.substring(0, text.length() / 2), false);
		abort("cut mid-message");
	}

	/** Closes abruptly: no close handshake, the TCP connection just goes. */
	void abort(String why) {
		WebSocket socket = this.socket;
		if (socket != null) {
			socket.abort();
		}
		died(why);
	}

	/** Closes politely (the run is over). */
	void close() {
		try {
			this.socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(2, TimeUnit.SECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			// Gone already.
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		abort("closed");
	}

	@Override
	public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
		this.partial.append(data);
		if (last) {
			String text = this.partial.toString();
			this.partial.setLength(0);
			received(text);
		}
		webSocket.request(1);
		return null;
	}

	@Override
	public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
		died("closed by the service: " + statusCode + " " + reason);
		return null;
	}

	@Override
	public void onError(WebSocket webSocket, Throwable error) {
		died(error.getClass().getSimpleName() + ": " + error.getMessage());
	}

	private void received(String text) {
		JsonNode message;
		try {
			message = Client.JSON.readTree(text);
		}
		catch (RuntimeException ex) {
			this.history.violation("expected-answers",
					this.workerId + " got a stream message that is not JSON: " + History.abbreviate(text));
			return;
		}
		String type = message.path("type").asString("");
		if (type.equals("lease")) {
			pushedLease(message);
		}
		else if (type.equals("answer") && message.path("ref").isIntegralNumber()) {
			Pending wait = this.pending.remove(message.path("ref").asLong());
			if (wait != null) {
				wait.future.complete(message);
			}
		}
		else {
			// A refused credit or a message the service could not read: the harness sends
			// neither.
			this.history.violation("expected-answers",
					this.workerId + " got a stream message it never asked for: " + History.abbreviate(text));
		}
	}

	/**
	 * Records a pushed lease as a grant. It was claimed after the credit it used was
	 * given: leases are pushed in the order they are granted, one credit each, so the
	 * k-th push used the k-th credit, and was claimed no earlier than that credit was
	 * sent (the worker's lower bound on the lease's life).
	 */
	private void pushedLease(JsonNode message) {
		long received = System.nanoTime();
		long claimedAfter;
		synchronized (this) {
			if (this.dead) {
				return; // counted among the credits outstanding when it died
			}
			this.pushes++;
			claimedAfter = received;
			for (long[] credit : this.creditTimes) {
				if (credit[1] >= this.pushes) {
					claimedAfter = credit[0];
					break;
				}
			}
			if (this.pushes > this.creditsGiven) {
				this.history.violation("expected-answers", this.workerId + " was pushed lease " + this.pushes
						+ " with only " + this.creditsGiven + " credits given");
			}
		}
		Exchange grant = grant(message, claimedAfter, received, Instant.now(), "ws:lease");
		this.pushed.add(new Pushed(grant, message));
	}

	private Exchange grant(JsonNode granted, long sentNanos, long receivedNanos, Instant sentAt, String path) {
		JsonNode lease = granted.path("lease");
		Exchange exchange = new Exchange(this.history.nextSeq(), this.workerId, Op.STREAM_GRANT, this.instance, "WS",
				path, Client.uuid(lease.path("id")), Client.uuid(granted.path("item").path("id")),
				lease.path("epoch").asLong(), false, null, sentNanos, receivedNanos, sentAt, 201, null, null, null);
		this.history.recordMessage(exchange, null);
		return exchange;
	}

	private Exchange unansweredGrant(long sentNanos, long receivedNanos, Instant sentAt, String why) {
		Exchange exchange = new Exchange(this.history.nextSeq(), this.workerId, Op.STREAM_GRANT, this.instance, "WS",
				"ws:lease", null, null, null, false, null, sentNanos, receivedNanos, sentAt, Exchange.NO_ANSWER, null,
				null, why);
		this.history.recordMessage(exchange, null);
		return exchange;
	}

	/**
	 * The connection is gone (once): pending requests get no answer, and each credit not
	 * yet used may have been granted a lease that never arrived.
	 */
	private void died(String why) {
		long outstanding;
		synchronized (this) {
			if (this.dead) {
				return;
			}
			this.dead = true;
			outstanding = this.creditsGiven - this.pushes;
		}
		long now = System.nanoTime();
		for (long i = 0; i < outstanding; i++) {
			unansweredGrant(now, now, Instant.now(), "credit outstanding when the stream ended (" + why + ")");
		}
		this.pending.values().forEach((wait) -> wait.future.complete(null));
	}

	/**
	 * Waits for the answer to {@code ref}; on a stream already gone, none comes (the
	 * stream is marked dead before its waits are ended, so one of the two sees it).
	 */
	private Pending pending(long ref) {
		Pending wait = new Pending(ref);
		this.pending.put(ref, wait);
		if (dead()) {
			wait.future.complete(null);
		}
		return wait;
	}

	private boolean sendText(String text, boolean last) {
		synchronized (this.socket) {
			try {
				this.socket.sendText(text, last).get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
				return true;
			}
			catch (ExecutionException | TimeoutException | IllegalStateException ex) {
				abort("send failed: " + ex);
				return false;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
	}

	private JsonNode await(Pending wait) {
		try {
			return wait.future.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	/** A request sent, its answer to come. */
	record Sent(long seq, Write write, Pending pending, Instant sentAt, long sentNanos) {
	}

	/**
	 * A lease write to send: its message type, the {@link Op} its HTTP request is, the
	 * lease, epoch and item, and whether the worker knows it to be stale.
	 */
	record Write(Op op, String type, UUID leaseId, UUID itemId, long epoch, boolean stale, Map<String, Object> body,
			boolean claimsNext) {
	}

	/** A pushed lease: its recorded grant and the message. */
	record Pushed(Exchange grant, JsonNode message) {
	}

	static final class Pending {

		final long ref;

		/** The answer; null when the stream ended without one. */
		final CompletableFuture<JsonNode> future = new CompletableFuture<>();

		Pending(long ref) {
			this.ref = ref;
		}

	}

}
