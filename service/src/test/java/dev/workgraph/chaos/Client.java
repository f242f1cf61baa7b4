package dev.workgraph.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

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

	/**
	 * The worker's own token for a worker stream's handshake, null without access
	 * control.
	 */
	String streamToken(String workerId) {
		return (this.adminToken != null) ? workerToken(workerId) : null;
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

	/**
	 * Caps these queues ({@code PATCH /queues/{name}}) through whichever instance
	 * answers, outside the history: set-up, before the load starts.
	 */
	void capQueues(Map<String, Integer> caps) {
		caps.forEach((queue, cap) -> {
			String body = JSON.writeValueAsString(Map.of("maxActiveLeases", cap));
			for (int attempt = 0; attempt < 240; attempt++) {
				ServiceInstance instance = this.instances.get(attempt % this.instances.size());
				HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(instance.base() + "/queues/" + queue))
					.timeout(this.timeout)
					.header("Content-Type", "application/json")
					.method("PATCH", HttpRequest.BodyPublishers.ofString(body));
				if (this.adminToken != null) {
					request.header("Authorization", "Bearer " + this.adminToken);
				}
				try {
					if (this.http.send(request.build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
						return;
					}
				}
				catch (IOException ex) {
					// That instance is down or restarting: try the next one.
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("interrupted while capping " + queue, ex);
				}
				ServiceInstance.sleep(250);
			}
			throw new IllegalStateException("no instance capped queue " + queue);
		});
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
			// A handoff's "lease" is the successor's: the one that ended is "ended".
			JsonNode lease = body.has("ended") ? body.path("ended") : body.has("lease") ? body.path("lease") : body;
			outcome = lease.path("outcome").asString(null);
		}
		else if (call.op == Op.CREATE && call.op.succeeded(status)) {
			itemId = uuid(body.path("id"));
		}
		String code = (status >= 400) ? body.path("code").asString(null) : null;
		Exchange exchange = new Exchange(seq, call.actor, call.op, call.instance % this.instances.size(), call.method,
				call.path, leaseId, itemId, epoch, call.stale, call.token, sent, received, sentAt, status, code,
				outcome, failure, call.op.succeeded(status) ? facts(call.op, body) : Exchange.Facts.NONE);
		this.history.record(exchange, contentType, text);
		return new Reply(exchange, body, recordEntries(call, exchange, body));
	}

	/** What a successful answer said that the checker judges beyond the lease. */
	private static Exchange.Facts facts(Op op, JsonNode body) {
		return switch (op) {
			case CLAIM -> Exchange.Facts.checkpoint(shownCheckpoint(body.path("item")));
			case CHECKPOINT -> Exchange.Facts.checkpoint(body.path("checkpoint").path("seq").asLong());
			case RELEASE, FAIL ->
				Exchange.Facts.notBefore(micros(body.path("item").path("blockers").path("notBefore")));
			case CREATE -> Exchange.Facts.notBefore(micros(body.path("blockers").path("notBefore")));
			case EVENT -> Exchange.Facts.event(uuid(body.path("eventId")), body.path("matchedWaits").asInt());
			case WAIT -> Exchange.Facts.waited(uuid(body.path("wait").path("id")),
					body.path("wait").path("status").asString(null),
					uuid(body.path("wait").path("matchedEvent").path("eventId")));
			default -> Exchange.Facts.NONE;
		};
	}

	/**
	 * The seq of the latest checkpoint an item view shows, 0 when it shows none, null
	 * when the answer has no item view to tell.
	 */
	private static Long shownCheckpoint(JsonNode item) {
		if (!item.has("checkpoint")) {
			return null;
		}
		return item.path("checkpoint").path("seq").asLong(0);
	}

	/** An RFC 3339 time as microseconds since the epoch, null when absent. */
	static Long micros(JsonNode time) {
		String text = time.asString(null);
		if (text == null || text.isEmpty()) {
			return null;
		}
		Instant instant = Instant.parse(text);
		return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
	}

	/**
	 * Records each entry of a batch after the batch itself, as the single request it
	 * stands for: each lease a batch claim granted, each completion with its own answer
	 * (matched by position, as docs/http-api.md promises). When the batch's answer was
	 * lost, so was each entry's: every completion it carried, and each of the
	 * {@code limit} leases a batch claim may have granted.
	 */
	private List<Reply> recordEntries(Call call, Exchange batch, JsonNode body) {
		List<Reply> entries = new ArrayList<>();
		if (call.op == Op.CLAIM_BATCH && batch.status() == 201) {
			JsonNode claims = body.path("claims");
			if (claims.size() < 1 || claims.size() > call.limit) {
				this.history.violation("expected-answers",
						"a batch claim of at most " + call.limit + " granted " + claims.size() + ": " + batch);
			}
			for (int i = 0; i < claims.size(); i++) {
				JsonNode lease = claims.get(i).path("lease");
				entries.add(entry(batch, Op.CLAIM_BATCH_ENTRY, i, uuid(lease.path("id")),
						uuid(claims.get(i).path("item").path("id")), lease.path("epoch").asLong(), false, 201, null,
						null, claims.get(i), Exchange.Facts.checkpoint(shownCheckpoint(claims.get(i).path("item")))));
			}
		}
		else if (call.op == Op.HANDOFF && batch.status() == 201) {
			JsonNode lease = body.path("lease");
			Exchange grant = new Exchange(this.history.nextSeq(), call.successor, Op.HANDOFF_GRANT, batch.instance(),
					batch.method(), batch.path() + "[successor]", uuid(lease.path("id")), batch.itemId(),
					lease.path("epoch").asLong(), false, null, batch.sentNanos(), batch.receivedNanos(), batch.sentAt(),
					201, null, null, null, Exchange.Facts.checkpoint(shownCheckpoint(body.path("item"))));
			this.history.recordEntry(grant, null);
			entries.add(new Reply(grant, body, List.of()));
		}
		else if (call.op == Op.HANDOFF && batch.unavailable()) {
			Exchange grant = new Exchange(this.history.nextSeq(), call.successor, Op.HANDOFF_GRANT, batch.instance(),
					batch.method(), batch.path() + "[successor]", null, batch.itemId(), null, false, null,
					batch.sentNanos(), batch.receivedNanos(), batch.sentAt(), Exchange.NO_ANSWER, null, null,
					"the handoff's answer was " + batch.statusText());
			this.history.recordEntry(grant, null);
			entries.add(new Reply(grant, MissingNode.getInstance(), List.of()));
		}
		else if (call.op == Op.CLAIM_BATCH && batch.unavailable()) {
			for (int i = 0; i < call.limit; i++) {
				entries.add(unanswered(batch, Op.CLAIM_BATCH_ENTRY, i, null, null, null, false));
			}
		}
		else if (call.op == Op.COMPLETE_BATCH && (batch.status() == 200 || batch.unavailable())) {
			JsonNode results = body.path("results");
			if (batch.status() == 200 && results.size() != call.entries.size()) {
				this.history.violation("expected-answers",
						call.entries.size() + " completions answered with " + results.size() + " results: " + batch);
			}
			for (int i = 0; i < call.entries.size(); i++) {
				Entry sent = call.entries.get(i);
				JsonNode result = results.path(i);
				boolean own = sent.leaseId().toString().equals(result.path("leaseId").asString(null))
						&& result.path("status").isInt();
				if (batch.status() != 200 || !own) {
					if (batch.status() == 200) {
						this.history.violation("expected-answers", "completion " + i + " (lease " + sent.leaseId()
								+ ") has no result of its own: " + batch);
					}
					entries.add(unanswered(batch, Op.COMPLETE_BATCH_ENTRY, i, sent.leaseId(), sent.itemId(),
							sent.epoch(), sent.stale()));
					continue;
				}
				JsonNode problem = result.path("problem");
				entries.add(entry(batch, Op.COMPLETE_BATCH_ENTRY, i, sent.leaseId(), sent.itemId(), sent.epoch(),
						sent.stale(), result.path("status").asInt(), problem.path("code").asString(null),
						result.path("lease").path("outcome").asString(null), result));
			}
		}
		return entries;
	}

	private Reply entry(Exchange batch, Op op, int index, UUID leaseId, UUID itemId, Long epoch, boolean stale,
			int status, String code, String outcome, JsonNode body) {
		return entry(batch, op, index, leaseId, itemId, epoch, stale, status, code, outcome, body, Exchange.Facts.NONE);
	}

	private Reply entry(Exchange batch, Op op, int index, UUID leaseId, UUID itemId, Long epoch, boolean stale,
			int status, String code, String outcome, JsonNode body, Exchange.Facts facts) {
		Exchange entry = new Exchange(this.history.nextSeq(), batch.actor(), op, batch.instance(), batch.method(),
				batch.path() + "[" + index + "]", leaseId, itemId, epoch, stale, null, batch.sentNanos(),
				batch.receivedNanos(), batch.sentAt(), status, code, outcome,
				(status == Exchange.NO_ANSWER) ? "the batch's answer was " + batch.statusText() : null, facts);
		JsonNode problem = body.path("problem");
		this.history.recordEntry(entry, problem.isMissingNode() ? null : problem.toString());
		return new Reply(entry, body, List.of());
	}

	private Reply unanswered(Exchange batch, Op op, int index, UUID leaseId, UUID itemId, Long epoch, boolean stale) {
		return entry(batch, op, index, leaseId, itemId, epoch, stale, Exchange.NO_ANSWER, null, null,
				MissingNode.getInstance());
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

	/**
	 * One completion of a batch: the lease and epoch presented, the item, whether the
	 * worker knows it to be stale, and the result.
	 */
	record Entry(UUID leaseId, UUID itemId, long epoch, boolean stale, Object result) {
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

		/** The most leases a batch claim asks for. */
		int limit;

		/** The completions of a batch completion, in request order. */
		List<Entry> entries = List.of();

		/** Must reach this very instance, even behind a load balancer. */
		boolean addressed;

		/** A handoff's successor: the worker its new lease is granted to. */
		String successor;

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

		/** {@code POST /claims/batch} for up to {@code limit} items. */
		static Call claimBatch(String actor, List<String> queues, int leaseSeconds, int limit) {
			Call call = post(actor, Op.CLAIM_BATCH, "/claims/batch",
					Map.of("workerId", actor, "queues", queues, "leaseSeconds", leaseSeconds, "limit", limit));
			call.limit = limit;
			return call;
		}

		/**
		 * {@code POST /completions}, its body made from the entries, so that what is
		 * recorded of each is what was sent.
		 */
		static Call completions(String actor, List<Entry> entries) {
			List<Map<String, Object>> completions = entries.stream()
				.map((entry) -> Map.of("leaseId", entry.leaseId().toString(), "epoch", entry.epoch(), "result",
						entry.result()))
				.toList();
			Call call = post(actor, Op.COMPLETE_BATCH, "/completions", Map.of("completions", completions));
			call.entries = List.copyOf(entries);
			return call;
		}

		/** {@code POST /leases/{id}/handoff} of this lease to {@code successor}. */
		static Call handoff(String actor, UUID leaseId, UUID itemId, long epoch, String successor, int leaseSeconds) {
			Call call = post(actor, Op.HANDOFF, "/leases/" + leaseId + "/handoff", Map.of("epoch", epoch, "toWorkerId",
					successor, "reason", "over to " + successor, "leaseSeconds", leaseSeconds));
			call.successor = successor;
			return call.lease(leaseId, epoch).item(itemId);
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

	/**
	 * The recorded exchange and the parsed body (missing when empty or not JSON); for a
	 * batch, each entry's own reply, in request order (see {@link Op#entry()}).
	 */
	record Reply(Exchange exchange, JsonNode body, List<Reply> entries) {

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

		/**
		 * A completion refused because blockers arrived during the lease: the API says
		 * release it instead.
		 */
		boolean releaseInstead() {
			return "open_children".equals(code()) || "unmet_dependencies".equals(code());
		}

		/**
		 * Of two answers to the same request sent twice at once, the one that tells what
		 * became of it: a success; else a refusal saying to release instead; else a stale
		 * rejection; else the first if its outcome is unknown, or the second.
		 */
		static Reply decisive(Reply first, Reply second) {
			List<Predicate<Reply>> telling = List.of(Reply::ok, Reply::releaseInstead,
					(reply) -> reply.exchange().staleRejection());
			for (Predicate<Reply> tells : telling) {
				if (tells.test(first)) {
					return first;
				}
				if (tells.test(second)) {
					return second;
				}
			}
			return first.unavailable() ? first : second;
		}

	}

}
