package dev.workgraph.client;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.MissingNode;

/**
 * A stand-in for the service, on the JDK's HTTP server, for what a real service cannot be
 * made to do on demand: answer 503 with {@code Retry-After}, drop a connection after a
 * write was carried out, hang. Every request is recorded (method, path, headers, body,
 * arrival), so tests prove from the server side what was and was not sent.
 */
public final class FakeService implements AutoCloseable {

	public static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpServer server;

	private final ExecutorService threads = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "fake-service");
		thread.setDaemon(true);
		return thread;
	});

	private final List<Route> routes = new CopyOnWriteArrayList<>();

	private final List<Request> requests = new CopyOnWriteArrayList<>();

	public FakeService() {
		try {
			this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		this.server.setExecutor(this.threads);
		this.server.createContext("/", this::handle);
		this.server.start();
	}

	public String url() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	/**
	 * Answers requests whose method and path (regular expression) match; the last
	 * matching route added wins, so a test can override a default.
	 */
	public FakeService on(String method, String pathPattern, Responder responder) {
		this.routes.add(0, new Route(method, Pattern.compile(pathPattern), responder));
		return this;
	}

	public List<Request> requests() {
		return List.copyOf(this.requests);
	}

	public List<Request> requests(String method, String pathPattern) {
		Pattern pattern = Pattern.compile(pathPattern);
		return this.requests.stream()
			.filter((request) -> request.method().equals(method) && pattern.matcher(request.path()).matches())
			.toList();
	}

	@Override
	public void close() {
		// Hanging handlers first, so that the server does not wait for them.
		this.threads.shutdownNow();
		this.server.stop(0);
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange) {
			byte[] bytes = exchange.getRequestBody().readAllBytes();
			JsonNode body = (bytes.length > 0) ? JSON.readTree(bytes) : MissingNode.getInstance();
			Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
					exchange.getRequestURI().getRawQuery(), Map.copyOf(exchange.getRequestHeaders()), body,
					System.nanoTime());
			this.requests.add(request);
			for (Route route : this.routes) {
				if (route.method().equals(request.method()) && route.path().matcher(request.path()).matches()) {
					route.responder().respond(request, new Answer(exchange));
					return;
				}
			}
			new Answer(exchange).problem(404, "not_found", "no route in the fake service");
		}
	}

	// Bodies the service would send

	public static Map<String, Object> lease(UUID leaseId, UUID itemId, long epoch, Duration length) {
		Instant now = Instant.parse("2026-11-30T12:00:00Z");
		Map<String, Object> lease = new LinkedHashMap<>();
		lease.put("id", leaseId.toString());
		lease.put("itemId", itemId.toString());
		lease.put("workerId", "w");
		lease.put("epoch", epoch);
		lease.put("acquiredAt", now.toString());
		lease.put("renewedAt", now.toString());
		lease.put("expiresAt", now.plus(length).toString());
		lease.put("active", true);
		return lease;
	}

	public static Map<String, Object> ended(Map<String, Object> lease, String outcome) {
		Map<String, Object> ended = new LinkedHashMap<>(lease);
		ended.put("active", false);
		ended.put("endedAt", lease.get("expiresAt"));
		ended.put("outcome", outcome);
		return ended;
	}

	public static Map<String, Object> item(UUID itemId, String status) {
		return Map.of("id", itemId.toString(), "title", "an item", "status", status, "epoch", 1);
	}

	public static Map<String, Object> claim(Map<String, Object> lease, String status) {
		return Map.of("lease", lease, "item", item(UUID.fromString((String) lease.get("itemId")), status));
	}

	/** Answers one request. */
	@FunctionalInterface
	public interface Responder {

		void respond(Request request, Answer answer) throws IOException;

	}

	/** A recorded request. */
	public record Request(String method, String path, String query, Map<String, List<String>> headers, JsonNode body,
			long arrivedAtNanos) {

		public String header(String name) {
			for (Map.Entry<String, List<String>> header : this.headers.entrySet()) {
				if (header.getKey().equalsIgnoreCase(name) && !header.getValue().isEmpty()) {
					return header.getValue().get(0);
				}
			}
			return null;
		}

	}

	/** Ways to answer. */
	public static final class Answer {

		private final HttpExchange exchange;

		Answer(HttpExchange exchange) {
			this.exchange = exchange;
		}

		public void json(int status, Object body) throws IOException {
			send(status, "application/json", JSON.writeValueAsBytes(body), Map.of());
		}

		public void problem(int status, String code, String detail) throws IOException {
			problem(status, code, detail, Map.of(), Map.of());
		}

		public void problem(int status, String code, String detail, Map<String, Object> members,
				Map<String, String> headers) throws IOException {
			Map<String, Object> problem = new LinkedHashMap<>();
			problem.put("type", "urn:workgraph:problem:" + code);
			problem.put("title", code);
			problem.put("status", status);
			problem.put("detail", detail);
			problem.put("code", code);
			problem.putAll(members);
			send(status, "application/problem+json", JSON.writeValueAsBytes(problem), headers);
		}

		public void empty(int status) throws IOException {
			this.exchange.sendResponseHeaders(status, -1);
		}

		public void text(int status, String contentType, String text) throws IOException {
			send(status, contentType, text.getBytes(StandardCharsets.UTF_8), Map.of());
		}

		/** Ends the exchange without any answer: the client sees the connection go. */
		public void drop() {
			throw new DroppedConnection();
		}

		public void hang(Duration duration) {
			try {
				Thread.sleep(duration.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		private void send(int status, String contentType, byte[] bytes, Map<String, String> headers)
				throws IOException {
			this.exchange.getResponseHeaders().set("Content-Type", contentType);
			headers.forEach((name, value) -> this.exchange.getResponseHeaders().set(name, value));
			this.exchange.sendResponseHeaders(status, bytes.length);
			try (OutputStream out = this.exchange.getResponseBody()) {
				out.write(bytes);
			}
		}

	}

	/**
	 * Thrown out of a handler to make the JDK server close the connection without
	 * answering.
	 */
	static final class DroppedConnection extends RuntimeException {

		private static final long serialVersionUID = 1L;

		DroppedConnection() {
			super("connection dropped on purpose", null, false, false);
		}

	}

	private record Route(String method, Pattern path, Responder responder) {
	}

	static List<String> paths(List<Request> requests) {
		List<String> paths = new ArrayList<>();
		requests.forEach((request) -> paths.add(request.method() + " " + request.path()));
		return paths;
	}

}
