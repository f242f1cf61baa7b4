package dev.workgraph.testing;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A worker stream as a test sees it (the JDK's WebSocket client): messages sent as maps,
 * answers awaited by {@code ref}, pushed leases taken from a queue, and how the stream
 * closed.
 */
public final class StreamConnection implements AutoCloseable {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final WebSocket socket;

	private final BlockingQueue<JsonNode> leases = new LinkedBlockingQueue<>();

	private final BlockingQueue<JsonNode> unreferenced = new LinkedBlockingQueue<>();

	private final Map<String, CompletableFuture<JsonNode>> answers = new ConcurrentHashMap<>();

	private final CompletableFuture<Integer> closed = new CompletableFuture<>();

	private final AtomicLong refs = new AtomicLong();

	private StreamConnection(int port, String token) {
		WebSocket.Builder builder = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5));
		if (token != null) {
			builder.header("Authorization", "Bearer " + token);
		}
		this.socket = builder.buildAsync(URI.create("ws://localhost:" + port + "/worker-stream"), new Listener())
			.join();
	}

	/** Opens a stream; fails with the handshake's status when it is refused. */
	public static StreamConnection open(int port, String token) {
		return new StreamConnection(port, token);
	}

	/** The HTTP status a refused handshake answered. */
	public static int refusedHandshake(int port, String token) {
		HttpResponse<?> refused = refusal(port, token);
		return (refused != null) ? refused.statusCode() : 101;
	}

	/**
	 * What a refused handshake answered (its status and body); null when the stream
	 * opened (it is closed again at once).
	 */
	public static HttpResponse<?> refusal(int port, String token) {
		try {
			new StreamConnection(port, token).close();
			return null;
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof WebSocketHandshakeException refused) {
				return refused.getResponse();
			}
			throw ex;
		}
	}

	/** Sends a request message and waits for its answer. */
	public JsonNode request(String type, Object leaseId, Object body) {
		try {
			return requestAsync(type, leaseId, body).get(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException | ExecutionException | java.util.concurrent.TimeoutException ex) {
			throw new IllegalStateException("No answer to " + type, ex);
		}
	}

	public CompletableFuture<JsonNode> requestAsync(String type, Object leaseId, Object body) {
		String ref = Long.toString(this.refs.incrementAndGet());
		CompletableFuture<JsonNode> answer = new CompletableFuture<>();
		this.answers.put(ref, answer);
		Map<String, Object> message = new java.util.LinkedHashMap<>();
		message.put("type", type);
		message.put("ref", ref);
		if (leaseId != null) {
			message.put("leaseId", leaseId.toString());
		}
		message.put("body", body);
		sendText(JSON.writeValueAsString(message));
		return answer;
	}

	/** {@code hello}, answered. */
	public JsonNode hello(Map<String, Object> body) {
		return request("hello", null, body);
	}

	public void credit(int credits) {
		sendText(JSON.writeValueAsString(Map.of("type", "credit", "credits", credits)));
	}

	public synchronized void sendText(String text) {
		this.socket.sendText(text, true).join();
	}

	/** Sends the first part of a message, never its end. */
	public synchronized void sendPart(String text) {
		this.socket.sendText(text, false).join();
	}

	/** The next pushed lease ({@code {type, lease, item}}), or null after the wait. */
	public JsonNode nextLease(Duration wait) throws InterruptedException {
		return this.leases.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
	}

	/** Every lease pushed so far and not taken. */
	public List<JsonNode> drainLeases() {
		List<JsonNode> drained = new ArrayList<>();
		this.leases.drainTo(drained);
		return drained;
	}

	/** The next answer without a {@code ref} of a request this connection sent. */
	public JsonNode nextUnreferenced(Duration wait) throws InterruptedException {
		return this.unreferenced.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
	}

	/** The close code the service sent, when it closes within the wait; else null. */
	public Integer awaitClosed(Duration wait) {
		try {
			return this.closed.get(wait.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (java.util.concurrent.TimeoutException ex) {
			return null;
		}
		catch (InterruptedException | ExecutionException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Cuts the connection without a close handshake. */
	public void cut() {
		this.socket.abort();
	}

	@Override
	public void close() {
		if (!this.socket.isOutputClosed()) {
			try {
				this.socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				this.socket.abort();
			}
		}
	}

	private final class Listener implements WebSocket.Listener {

		private final StringBuilder text = new StringBuilder();

		@Override
		public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
			this.text.append(data);
			if (last) {
				JsonNode message = JSON.readTree(this.text.toString());
				this.text.setLength(0);
				if ("lease".equals(message.path("type").asString())) {
					StreamConnection.this.leases.add(message);
				}
				else if (message.hasNonNull("ref")
						&& StreamConnection.this.answers.containsKey(message.get("ref").asString())) {
					StreamConnection.this.answers.remove(message.get("ref").asString()).complete(message);
				}
				else {
					StreamConnection.this.unreferenced.add(message);
				}
			}
			webSocket.request(1);
			return null;
		}

		@Override
		public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
			StreamConnection.this.closed.complete(statusCode);
			return null;
		}

		@Override
		public void onError(WebSocket webSocket, Throwable error) {
			StreamConnection.this.closed.complete(-1);
		}

	}

}
