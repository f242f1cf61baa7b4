package dev.workgraph.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Stream;

import dev.workgraph.client.Http.Call;
import dev.workgraph.client.problem.RequestInterrupted;
import dev.workgraph.client.problem.ServiceUnreachable;
import tools.jackson.databind.JavaType;

/**
 * A typed client for every endpoint of the Work Graph API. Thread-safe; make one per
 * service and share it. Every method either returns the answer or throws a
 * {@link dev.workgraph.client.problem.WorkGraphException}: a
 * {@link dev.workgraph.client.problem.RequestRejected} subclass for each problem
 * {@code code} the service answers with, {@link ServiceUnreachable} when no answer came,
 * {@link RequestInterrupted} when the calling thread was interrupted.
 *
 * <pre>{@code
 * WorkGraphClient client = WorkGraphClient.builder("http://localhost:8080").token(token).build();
 * Item item = client.createItem(NewItem.titled("Summarise the incident").withQueue("writing"));
 * }</pre>
 *
 * For workers, {@link dev.workgraph.client.worker.Worker} runs the claim loop, renews,
 * fences and stops cleanly on top of this client.
 */
public final class WorkGraphClient {

	private final Http http;

	private WorkGraphClient(Http http) {
		this.http = http;
	}

	/** A client of the service at this base URL, e.g. {@code http://localhost:8080}. */
	public static Builder builder(String baseUrl) {
		return new Builder(URI.create(Objects.requireNonNull(baseUrl, "baseUrl")));
	}

	/** A client with default settings and no token. */
	public static WorkGraphClient create(String baseUrl) {
		return builder(baseUrl).build();
	}

	/**
	 * The same client (connections, token) with another request timeout: for a caller
	 * that must have an answer, or give up, within a deadline of its own.
	 */
	public WorkGraphClient withRequestTimeout(Duration timeout) {
		return new WorkGraphClient(this.http.withRequestTimeout(positive(timeout, "timeout")));
	}

	/** The wire, for the worker stream opened with this client's address and token. */
	Http http() {
		return this.http;
	}

	/** How long a request may take before it fails with {@link ServiceUnreachable}. */
	public Duration requestTimeout() {
		return this.http.requestTimeout();
	}

	// Items

	/** {@code POST /items}: creates an item. */
	public Item createItem(NewItem item) {
		return call(Call.post("/items", item), Json.ITEM);
	}

	/**
	 * {@code POST /items} with an {@code Idempotency-Key}: the same key with the same
	 * body returns the item created the first time (as it is now), so a retry after a
	 * lost answer creates nothing twice. The same key with another body is
	 * {@link dev.workgraph.client.problem.IdempotencyConflict}.
	 */
	public Item createItem(NewItem item, String idempotencyKey) {
		return call(Call.post("/items", item).header("Idempotency-Key", idempotencyKey), Json.ITEM);
	}

	/** {@code GET /items/{id}}. */
	public Item getItem(UUID itemId) {
		return call(Call.get("/items/" + itemId), Json.ITEM);
	}

	/** {@code GET /items}: one page. */
	public ItemPage listItems(ItemQuery query) {
		return call(query.call(), Json.type(ItemPage.class));
	}

	/** Every item the query matches, fetched page by page as the stream is consumed. */
	public Stream<Item> items(ItemQuery query) {
		return Pages.stream((cursor) -> {
			ItemPage page = listItems(query.withCursor(cursor));
			return new Pages.Page<>(page.items(), page.nextCursor());
		}, query.cursor());
	}

	/** {@code POST /items/{id}/dependencies}: the item waits for {@code dependsOn}. */
	public Item addDependency(UUID itemId, UUID dependsOn) {
		return call(Call.post("/items/" + itemId + "/dependencies", Map.of("dependsOn", dependsOn)), Json.ITEM);
	}

	/** {@code DELETE /items/{id}/dependencies/{dependsOnId}}. */
	public void removeDependency(UUID itemId, UUID dependsOn) {
		call(Call.delete("/items/" + itemId + "/dependencies/" + dependsOn), null);
	}

	/**
	 * {@code POST /items/{id}/cancel}: the operator's cancel of the item and its open
	 * descendants; their active leases end as {@code cancelled}.
	 */
	public Item cancelItem(UUID itemId, String reason) {
		return call(Call.post("/items/" + itemId + "/cancel", Body.of("reason", reason)), Json.ITEM);
	}

	/** {@code GET /items/{id}/leases}: a page of the item's leases, by epoch. */
	public LeasePage leasesOfItem(UUID itemId, Integer limit, String cursor) {
		return call(Call.get("/items/" + itemId + "/leases").query("limit", limit).query("cursor", cursor),
				Json.type(LeasePage.class));
	}

	/** Every lease of the item, active and ended, ordered by epoch. */
	public List<Lease> leasesOfItem(UUID itemId) {
		return Pages.stream((cursor) -> {
			LeasePage page = leasesOfItem(itemId, null, cursor);
			return new Pages.Page<>(page.leases(), page.nextCursor());
		}, null).toList();
	}

	// Claims

	/**
	 * {@code POST /claims}: the best ready item under a new lease, or empty when nothing
	 * is ready (after waiting up to {@code waitSeconds}, if given). The request may take
	 * {@code waitSeconds} longer than the request timeout.
	 */
	public Optional<Claim> claim(ClaimRequest request) {
		return Optional.ofNullable(this.http.call(claimCall(request), Json.CLAIM));
	}

	/**
	 * {@link #claim(ClaimRequest)} without blocking. Cancelling the future abandons the
	 * request (the connection is closed), which is how a long-poll claim is called off.
	 */
	public CompletableFuture<Optional<Claim>> claimAsync(ClaimRequest request) {
		CompletableFuture<Claim> claim = this.http.callAsync(claimCall(request), Json.CLAIM);
		return Http.cancelling(claim, claim.thenApply(Optional::ofNullable));
	}

	private Call claimCall(ClaimRequest request) {
		return waiting(Call.post("/claims", request), request.waitSeconds());
	}

	/**
	 * {@code POST /claims/batch}: up to {@code limit} items, each under its own lease, in
	 * claim order; empty when nothing is ready (after the wait).
	 */
	public List<Claim> claimBatch(BatchClaimRequest request) {
		Envelopes.Claims claims = call(waiting(Call.post("/claims/batch", request), request.waitSeconds()),
				Json.type(Envelopes.Claims.class));
		return (claims != null) ? claims.claims() : List.of();
	}

	// Leases

	/** {@code GET /leases/{id}}: the lease, active or ended (with its outcome). */
	public Lease getLease(UUID leaseId) {
		return call(Call.get("/leases/" + leaseId), Json.LEASE);
	}

	/**
	 * {@code POST /leases/{id}/renew}: {@code expiresAt} becomes the service's now plus
	 * {@code leaseSeconds} (the service's default when null).
	 */
	public Lease renew(LeaseRef lease, Integer leaseSeconds) {
		return call(renewCall(lease, leaseSeconds), Json.LEASE);
	}

	/** {@link #renew(LeaseRef, Integer)} without blocking. */
	public CompletableFuture<Lease> renewAsync(LeaseRef lease, Integer leaseSeconds) {
		return this.http.callAsync(renewCall(lease, leaseSeconds), Json.LEASE);
	}

	private static Call renewCall(LeaseRef lease, Integer leaseSeconds) {
		return Call.post(leasePath(lease, "renew"), Body.fenced(lease, "leaseSeconds", leaseSeconds));
	}

	/** {@code POST /leases/{id}/complete}: completes the item with this result. */
	public EndedLease complete(LeaseRef lease, Object result) {
		return call(Call.post(leasePath(lease, "complete"), Body.fenced(lease, "result", result)), Json.ENDED);
	}

	/**
	 * {@code POST /leases/{id}/complete} with {@code claimNext}: completes the item with
	 * this JSON result, then claims the next ready item for the same worker, as
	 * {@link #claim(ClaimRequest)} would without waiting, all in one request: a worker
	 * going from item to item saves a round trip per item. The completion is fenced as
	 * always, and a refused one claims nothing; an invalid {@code next} is
	 * {@link dev.workgraph.client.problem.ValidationFailed} and writes nothing. A claim
	 * that fails after the completion was committed does not undo it: the answer then has
	 * an empty {@code next()} and the {@code nextProblem()}.
	 */
	public CompletedWithNext completeAndClaimNext(LeaseRef lease, Object result, NextClaim next) {
		Body body = Body.fenced(lease, "result", result).with("claimNext", Objects.requireNonNull(next, "next"));
		return call(Call.post(leasePath(lease, "complete"), body), Json.type(CompletedWithNext.class));
	}

	/** {@code POST /leases/{id}/release}: the item goes back to the queue. */
	public EndedLease release(LeaseRef lease, String reason) {
		return call(Call.post(leasePath(lease, "release"), Body.fenced(lease, "reason", reason)), Json.ENDED);
	}

	/** {@code POST /leases/{id}/cancel}: cancels the item and its open descendants. */
	public EndedLease cancel(LeaseRef lease, String reason) {
		return call(Call.post(leasePath(lease, "cancel"), Body.fenced(lease, "reason", reason)), Json.ENDED);
	}

	/**
	 * {@code POST /leases/{id}/checkpoints}: saves {@code data} (a JSON object: a map or
	 * a record) as the item's next checkpoint, for whoever holds the item next;
	 * {@code renewSeconds} (null: no renewal) renews the lease in the same transaction.
	 */
	public SavedCheckpoint checkpoint(LeaseRef lease, Object data, Integer renewSeconds) {
		Body body = Body.fenced(lease, "data", data).with("renewSeconds", renewSeconds);
		return call(Call.post(leasePath(lease, "checkpoints"), body), Json.type(SavedCheckpoint.class));
	}

	/**
	 * {@code POST /leases/{id}/fail}: ends the lease {@code failed} with {@code error} (a
	 * JSON object); the item counts an attempt and runs again while it has attempts left.
	 * With none left, or {@code retryable} false, it waits for a human.
	 */
	public EndedLease fail(LeaseRef lease, Object error, Boolean retryable, String reason) {
		Body body = Body.fenced(lease, "error", error).with("retryable", retryable).with("reason", reason);
		return call(Call.post(leasePath(lease, "fail"), body), Json.ENDED);
	}

	/**
	 * {@code POST /leases/{id}/handoff}: ends the lease ({@code handed_off}) and leases
	 * the item to {@code toWorkerId} with the next epoch, in one transaction: no claim
	 * can take it in between. {@code leaseSeconds} null: the service's default.
	 */
	public HandedOff handOff(LeaseRef lease, String toWorkerId, String reason, Integer leaseSeconds) {
		Body body = Body.fenced(lease, "toWorkerId", toWorkerId)
			.with("reason", reason)
			.with("leaseSeconds", leaseSeconds);
		return call(Call.post(leasePath(lease, "handoff"), body), Json.type(HandedOff.class));
	}

	/**
	 * {@code POST /leases/{id}/decompose}: creates the children under the item
	 * atomically; the item waits until every child is terminal.
	 */
	public Decomposed decompose(LeaseRef lease, List<NewChild> children, String reason) {
		Body body = Body.fenced(lease, "children", children).with("reason", reason);
		return call(Call.post(leasePath(lease, "decompose"), body), Json.type(Decomposed.class));
	}

	/**
	 * {@code POST /leases/{id}/attention-requests}: asks a human. A blocking request ends
	 * the lease ({@code attention_requested}) and holds the item until answered.
	 */
	public AttentionRequest requestAttention(LeaseRef lease, NewAttentionRequest request) {
		Body body = Body.fenced(lease, "question", request.question())
			.with("blocking", request.blocking())
			.with("context", request.context());
		return call(Call.post(leasePath(lease, "attention-requests"), body), Json.ATTENTION_REQUEST);
	}

	/**
	 * {@code POST /completions}: completes up to 500 leases in one request, each fenced
	 * on its own; the results are in request order.
	 */
	public List<CompletionResult> completeAll(List<Completion> completions) {
		return this.<Envelopes.CompletionResults>call(Call.post("/completions", Map.of("completions", completions)),
				Json.type(Envelopes.CompletionResults.class))
			.results();
	}

	// Attention requests

	/** {@code GET /attention-requests}: one page, newest first. */
	public AttentionRequestPage listAttentionRequests(AttentionQuery query) {
		return call(query.call(), Json.type(AttentionRequestPage.class));
	}

	/** {@code GET /attention-requests/{id}}. */
	public AttentionRequest getAttentionRequest(UUID id) {
		return call(Call.get("/attention-requests/" + id), Json.ATTENTION_REQUEST);
	}

	/**
	 * {@code POST /attention-requests/{id}/resolve}: answers the question. With
	 * {@code resolvedBy} null, a service with tokens records the token's name.
	 */
	public AttentionRequest resolveAttentionRequest(UUID id, String resolution, String resolvedBy) {
		Body body = Body.of("resolution", resolution).with("resolvedBy", resolvedBy);
		return call(Call.post("/attention-requests/" + id + "/resolve", body), Json.ATTENTION_REQUEST);
	}

	// Tokens (admins)

	/** {@code POST /tokens}: a new token; its secret is shown this once. */
	public IssuedToken createToken(NewToken token) {
		return call(Call.post("/tokens", token), Json.type(IssuedToken.class));
	}

	/** {@code GET /tokens}: every token, without secrets. */
	public List<Token> listTokens() {
		return this.<Envelopes.Tokens>call(Call.get("/tokens"), Json.type(Envelopes.Tokens.class)).tokens();
	}

	/** {@code DELETE /tokens/{id}}: the token is refused from the next request on. */
	public void revokeToken(UUID tokenId) {
		call(Call.delete("/tokens/" + tokenId), null);
	}

	@Override
	public String toString() {
		return "WorkGraphClient[" + this.http.base() + "]";
	}

	// The wire

	private <T> T call(Call call, JavaType type) {
		return this.http.call(call, type);
	}

	private static String leasePath(LeaseRef lease, String action) {
		return "/leases/" + lease.id() + "/" + action;
	}

	/** A claim that may wait at the service may take that much longer. */
	private Call waiting(Call call, Integer waitSeconds) {
		return call
			.timeout((waitSeconds != null && waitSeconds > 0) ? requestTimeout().plusSeconds(waitSeconds) : null);
	}

	private static Duration positive(Duration duration, String name) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException(name + " must be positive");
		}
		return duration;
	}

	/** Settings of a {@link WorkGraphClient}. */
	public static final class Builder {

		private final URI baseUrl;

		private Supplier<String> token;

		private Duration requestTimeout = Duration.ofSeconds(30);

		private Duration connectTimeout = Duration.ofSeconds(5);

		private HttpClient httpClient;

		private Clock clock = Clock.systemUTC();

		private Supplier<String> traceparent;

		private Builder(URI baseUrl) {
			if (baseUrl.getScheme() == null || baseUrl.getHost() == null) {
				throw new IllegalArgumentException(
						"The base URL needs a scheme and a host, e.g. http://localhost:8080");
			}
			this.baseUrl = baseUrl;
		}

		/**
		 * Sends {@code Authorization: Bearer <token>} with every request; null (say, an
		 * unset environment variable) sends none, for a service without access control.
		 */
		public Builder token(String token) {
			this.token = (token != null && !token.isBlank()) ? () -> token : null;
			return this;
		}

		/** Asks for the token before every request, so that it can be rotated. */
		public Builder token(Supplier<String> token) {
			this.token = Objects.requireNonNull(token, "token");
			return this;
		}

		/**
		 * How long a request may take (30 s by default); a long-poll claim may take its
		 * {@code waitSeconds} longer.
		 */
		public Builder requestTimeout(Duration requestTimeout) {
			this.requestTimeout = positive(requestTimeout, "requestTimeout");
			return this;
		}

		/**
		 * How long connecting may take (5 s by default); ignored with
		 * {@link #httpClient}.
		 */
		public Builder connectTimeout(Duration connectTimeout) {
			this.connectTimeout = positive(connectTimeout, "connectTimeout");
			return this;
		}

		/**
		 * The JDK client to send with, e.g. one with TLS or proxy settings of one's own.
		 */
		public Builder httpClient(HttpClient httpClient) {
			this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
			return this;
		}

		/**
		 * Asks for the caller's W3C trace context before every request and sends it as
		 * {@code traceparent}, so that the service's spans join the caller's trace; null
		 * or empty sends none. The supplier runs on the thread that makes the request,
		 * where the tracer's current span is, e.g. with OpenTelemetry: <pre>{@code
		 * .traceparent(() -> {
		 *     SpanContext span = Span.current().getSpanContext();
		 *     return span.isValid() ? "00-" + span.getTraceId() + "-" + span.getSpanId() + "-"
		 *             + span.getTraceFlags().asHex() : null;
		 * })
		 * }</pre>
		 */
		public Builder traceparent(Supplier<String> traceparent) {
			this.traceparent = Objects.requireNonNull(traceparent, "traceparent");
			return this;
		}

		/** The wall clock, used only to read {@code Retry-After} dates. */
		Builder clock(Clock clock) {
			this.clock = clock;
			return this;
		}

		public WorkGraphClient build() {
			HttpClient client = (this.httpClient != null) ? this.httpClient : Http.client(this.connectTimeout);
			return new WorkGraphClient(new Http(client, this.baseUrl, this.token, this.requestTimeout, Http.userAgent(),
					this.clock, this.traceparent));
		}

	}

}
