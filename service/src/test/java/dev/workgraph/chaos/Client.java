package dev.workgraph.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.MissingNode;

/**
 * The HTTP client every simulated actor uses: real sockets to the service instances,
 * every request and answer recorded in the {@link History} (never an exception: a
 * connection failure or a timeout is an answer too).
 */
final class Client {

	static final JsonMapper JSON = JsonMapper.builder().build();

	private final List<ServiceInstance> instances;

	private final History history;

	private final Duration timeout;

	/**
	 * Where actors' requests go when the instances stand behind a load balancer: null
	 * when actors pick an instance themselves.
	 */
	private final String frontDoor;

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(2))
		.build();

	/**
	 * The cluster's bootstrap admin token: what the planner, responder and faults send.
	 */
	private final String adminToken;

	/**
	 * One worker token per worker id (an incarnation is a new worker), minted when first
	 * used.
	 */
	private final Map<String, String> workerTokens = new ConcurrentHashMap<>();

	/**
	 * @param adminToken the cluster's bootstrap admin token, null without access control
	 * @param frontDoor the load balancer's base URL: every request goes there except
	 * those {@linkplain Call#on(int) addressed to one instance} (probes, audits)
	 */
	Client(List<ServiceInstance> instances, History history, Duration timeout, String adminToken, String frontDoor) {
		this.instances = instances;
		this.history = history;
		this.timeout = timeout;
		this.adminToken = adminToken;
		this.frontDoor = frontDoor;
	}

	/**
	 * The worker's own token: access control binds a worker token to one worker id, so a
	 * simulated worker acts only as itself. Minted through whichever instance answers
	 * (faults may be under way), outside the history: it is set-up, not traffic.
	 */
	private String workerToken(String workerId) {
		return this.workerTokens.computeIfAbsent(workerId, this::mint);
	}

	private String mint(String workerId) {
		String body = JSON
			.writeValueAsString(Map.of("name", "chaos " + workerId, "role", "worker", "workerId", workerId));
		for (int attempt = 0; attempt < 240; attempt++) {
			ServiceInstance instance = this.instances.get(attempt % this.instances.size());
			try {
				HttpResponse<String> response = this.http
					.send(HttpRequest.newBuilder(URI.create(instance.base() + "/tokens"))
						.timeout(this.timeout)
						.header("Content-Type", "application/json")
						.header("Authorization", "Bearer " + this.adminToken)
						.POST(HttpRequest.BodyPublishers.ofString(body))
						.build(), HttpResponse.BodyHandlers.ofString());
				if (response.statusCode() == 201) {
					return JSON.readTree(response.body()).path("token").asString();
				}
			}
			catch (IOException ex) {
				// That instance is down or restarting: try the next one.
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("interrupted while minting a token for " + workerId, ex);
			}
			ServiceInstance.sleep(250);
		}
		throw new IllegalStateException("no instance minted a token for " + workerId);
	}

	int instanceCount() {
		return this.instances.size();
	}

	/** An actor saw something that breaks an invariant on its own. */
	void violation(String invariant, String detail) {
		this.history.violation(invariant, detail);
	}

	Reply send(Call call) {
		ServiceInstance instance = this.instances.get(call.instance % this.instances.size());
		String base = (this.frontDoor != null && !call.addressed) ? this.frontDoor : instance.base();
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + call.path))
			.timeout(this.timeout)
			.header("Accept", "application/json, application/problem+json");
		call.headers.forEach(request::header);
		if (this.adminToken != null && !call.headers.containsKey("Authorization")) {
			request.header("Authorization", "Bearer " + (call.asWorker ? workerToken(call.actor) : this.adminToken));
		}
		if (call.body != null) {
			request.header("Content-Type", "application/json")
				.method(call.method, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(call.body)));
		}
		else {
			request.method(call.method, HttpRequest.BodyPublishers.noBody());
		}
		long seq = this.history.nextSeq();
		Instant sentAt = Instant.now();
		long sent = System.nanoTime();
		int status;
		String text = null;
		String contentType = null;
		String failure = null;
		try {
			HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
			status = response.statusCode();
			text = response.body();
			contentType = response.headers().firstValue("Content-Type").orElse(null);
		}
		catch (HttpTimeoutException ex) {
			status = Exchange.TIMED_OUT;
			failure = "timeout";
		}
		catch (IOException ex) {
			status = Exchange.NO_ANSWER;
			failure = ex.getClass().getSimpleName() + ((ex.getMessage() != null) ? ": " + ex.getMessage() : "");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			status = Exchange.NO_ANSWER;
			failure = "interrupted";
		}
		long received = System.nanoTime();
		JsonNode body = parse(text);
		UUID leaseId = call.leaseId;
		UUID itemId = call.itemId;
		Long epoch = call.epoch;
		String outcome = null;
		if (call.op == Op.CLAIM && status == 201) {
			leaseId = uuid(body.path("lease").path("id"));
			epoch = body.path("lease").path("epoch").asLong();
			itemId = uuid(body.path("item").path("id"));
		}
		else if (call.op.leaseMutation() && call.op.succeeded(status)) {
			JsonNode lease = body.has("lease") ? body.path("lease") : body;
			outcome = lease.path("outcome").asString(null);
		}
		else if (call.op == Op.CREATE && call.op.succeeded(status)) {
			itemId = uuid(body.path("id"));
		}
		String code = (status >= 400) ? body.path("code").asString(null) : null;
		Exchange exchange = new Exchange(seq, call.actor, call.op, call.instance % this.instances.size(), call.method,
				call.path, leaseId, itemId, epoch, call.stale, call.token, sent, received, sentAt, status, code,
				outcome, failure);
		this.history.record(exchange, contentType, text);
		return new Reply(exchange, body);
	}

	private static JsonNode parse(String text) {
		if (text == null || text.isEmpty()) {
			return MissingNode.getInstance();
		}
		try {
			return JSON.readTree(text);
		}
		catch (RuntimeException ex) {
			return MissingNode.getInstance();
		}
	}

	static UUID uuid(JsonNode node) {
		String text = node.asString(null);
		return (text == null || text.isEmpty()) ? null : UUID.fromString(text);
	}

	/** A request to send, with what the checker needs to know about it. */
	static final class Call {

		final String actor;

		/** Sent with the actor's own worker token rather than the admin token. */
		boolean asWorker;

		final Op op;

		final String method;

		final String path;

		Object body;

		final Map<String, String> headers = new LinkedHashMap<>();

		UUID leaseId;

		UUID itemId;

		Long epoch;

		boolean stale;

		String token;

		int instance;

		/** Must reach this very instance, even behind a load balancer. */
		boolean addressed;

		private Call(String actor, Op op, String method, String path) {
			this.actor = actor;
			this.op = op;
			this.method = method;
			this.path = path;
		}

		static Call get(String actor, Op op, String path) {
			return new Call(actor, op, "GET", path);
		}

		static Call post(String actor, Op op, String path, Object body) {
			Call call = new Call(actor, op, "POST", path);
			call.body = body;
			return call;
		}

		static Call delete(String actor, Op op, String path) {
			return new Call(actor, op, "DELETE", path);
		}

		Call lease(UUID leaseId, long epoch) {
			this.leaseId = leaseId;
			this.epoch = epoch;
			return this;
		}

		Call item(UUID itemId) {
			this.itemId = itemId;
			return this;
		}

		Call stale(boolean stale) {
			this.stale = stale;
			return this;
		}

		Call token(String token) {
			this.token = token;
			return this;
		}

		Call header(String name, String value) {
			this.headers.put(name, value);
			return this;
		}

		Call asWorker() {
			this.asWorker = true;
			return this;
		}

		Call via(int instance) {
			this.instance = instance;
			return this;
		}

		/**
		 * To this instance itself, never through a load balancer: probes and audits that
		 * must ask each instance.
		 */
		Call on(int instance) {
			this.instance = instance;
			this.addressed = true;
			return this;
		}

	}

	/** The recorded exchange and the parsed body (missing when empty or not JSON). */
	record Reply(Exchange exchange, JsonNode body) {

		int status() {
			return this.exchange.status();
		}

		String code() {
			return this.exchange.code();
		}

		boolean ok() {
			return this.exchange.succeeded();
		}

		boolean unavailable() {
			return this.exchange.unavailable();
		}

	}

}
