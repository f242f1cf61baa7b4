package dev.workgraph.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import dev.workgraph.client.Http.Answer;
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

	/** How long a request may take before it fails with {@link ServiceUnreachable}. */
	public Duration requestTimeout() {
		return this.http.requestTimeout();
	}

	// Items

	/** {@code POST /items}: creates an item. */
	public Item createItem(NewItem item) {
		return call(Call.post("/items", item), ITEM);
	}

	/**
	 * {@code POST /items} with an {@code Idempotency-Key}: the same key with the same
	 * body returns the item created the first time (as it is now), so a retry after a
	 * lost answer creates nothing twice. The same key with another body is
	 * {@link dev.workgraph.client.problem.IdempotencyConflict}.
	 */
	public Item createItem(NewItem item, String idempotencyKey) {
		return call(Call.post("/items", item).header("Idempotency-Key", idempotencyKey), ITEM);
	}

	/** {@code GET /items/{id}}. */
	public Item getItem(UUID itemId) {
		return call(Call.get("/items/" + itemId), ITEM);
	}

	/** {@code GET /items}: one page. */
	public ItemPage listItems(ItemQuery query) {
		return call(Call.get("/items")
			.query("status", (query.status() != null) ? query.status().wire() : null)
			.query("queue", query.queue())
			.query("parentId", query.parentId())
			.query("limit", query.limit())
			.query("cursor", query.cursor()), type(ItemPage.class));
	}

	/** Every item the query matches, fetched page by page as the stream is consumed. */
	public Stream<Item> items(ItemQuery query) {
		return paged((cursor) -> {
			ItemPage page = listItems(query.withCursor(cursor));
			return new Page<>(page.items(), page.nextCursor());
		}, query.cursor());
	}

	/**
	 * {@code POST /items/{id}/dependencies}: {@code itemId} waits for {@code dependsOn}.
	 */
	public Item addDependency(UUID itemId, UUID dependsOn) {
		return call(Call.post("/items/" + itemId + "/dependencies", Map.of("dependsOn", dependsOn)), ITEM);
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
		return call(Call.post("/items/" + itemId + "/cancel", body("reason", reason)), ITEM);
	}

	/**
	 * {@code GET /items/{id}/leases}: one page of the item's leases, ordered by epoch.
	 */
	public LeasePage leasesOfItem(UUID itemId, Integer limit, String cursor) {
		return call(Call.get("/items/" + itemId + "/leases").query("limit", limit).query("cursor", cursor),
				type(LeasePage.class));
	}

	/** Every lease of the item, active and ended, ordered by epoch. */
	public List<Lease> leasesOfItem(UUID itemId) {
		return paged((cursor) -> {
			LeasePage page = leasesOfItem(itemId, null, cursor);
			return new Page<>(page.leases(), page.nextCursor());
		}, null).toList();
	}

	// Claims

	/**
	 * {@code POST /claims}: the best ready item under a new lease, or empty when nothing
	 * is ready (after waiting up to {@code waitSeconds}, if given). The request may take
	 * {@code waitSeconds} longer than the request timeout.
	 */
	public Optional<Claim> claim(ClaimRequest request) {
		Call call = claimCall(request);
		return Optional.ofNullable(Http.await(claimAsync(call), call));
	}

	/**
	 * {@link #claim(ClaimRequest)} without blocking. Cancelling the future abandons the
	 * request (the connection is closed), which is how a long-poll claim is called off.
	 */
	public CompletableFuture<Optional<Claim>> claimAsync(ClaimRequest request) {
		CompletableFuture<Claim> claim = claimAsync(claimCall(request));
		return Http.cancelling(claim, claim.thenApply(Optional::ofNullable));
	}

	private CompletableFuture<Claim> claimAsync(Call call) {
		return callAsync(call, type(Claim.class));
	}

	private Call claimCall(ClaimRequest request) {
		Integer wait = request.waitSeconds();
		return Call.post("/claims", request)
			.timeout((wait != null && wait > 0) ? requestTimeout().plusSeconds(wait) : null);
	}

	/**
	 * {@code POST /claims/batch}: up to {@code limit} items, each under its own lease, in
	 * claim order; empty when nothing is ready (after the wait).
	 */
	public List<Claim> claimBatch(BatchClaimRequest request) {
		Integer wait = request.waitSeconds();
		Claims claims = call(
				Call.post("/claims/batch", request)
					.timeout((wait != null && wait > 0) ? requestTimeout().plusSeconds(wait) : null),
				type(Claims.class));
		return (claims != null) ? claims.claims() : List.of();
	}

	// Leases

	/** {@code GET /leases/{id}}: the lease, active or ended (with its outcome). */
	public Lease getLease(UUID leaseId) {
		return call(Call.get("/leases/" + leaseId), LEASE);
	}

	/**
	 * {@code POST /leases/{id}/renew}: {@code expiresAt} becomes the service's now plus
	 * {@code leaseSeconds} (the service's default when null).
	 */
	public Lease renew(LeaseRef lease, Integer leaseSeconds) {
		return call(renewCall(lease, leaseSeconds), LEASE);
	}

	/** {@link #renew(LeaseRef, Integer)} without blocking. */
	public CompletableFuture<Lease> renewAsync(LeaseRef lease, Integer leaseSeconds) {
		return callAsync(renewCall(lease, leaseSeconds), LEASE);
	}

	private static Call renewCall(LeaseRef lease, Integer leaseSeconds) {
		return Call.post(leasePath(lease, "renew"), fenced(lease, "leaseSeconds", leaseSeconds));
	}

	/**
	 * {@code POST /leases/{id}/complete}: the item is completed with this JSON result.
	 */
	public EndedLease complete(LeaseRef lease, Object result) {
		return call(Call.post(leasePath(lease, "complete"), fenced(lease, "result", result)), ENDED);
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
		Map<String, Object> body = fenced(lease, "result", result);
		body.put("claimNext", Objects.requireNonNull(next, "next"));
		return call(Call.post(leasePath(lease, "complete"), body), type(CompletedWithNext.class));
	}

	/** {@code POST /leases/{id}/release}: the item goes back to the queue. */
	public EndedLease release(LeaseRef lease, String reason) {
		return call(Call.post(leasePath(lease, "release"), fenced(lease, "reason", reason)), ENDED);
	}

	/**
	 * {@code POST /leases/{id}/cancel}: the item and its open descendants are cancelled.
	 */
	public EndedLease cancel(LeaseRef lease, String reason) {
		return call(Call.post(leasePath(lease, "cancel"), fenced(lease, "reason", reason)), ENDED);
	}

	/**
	 * {@code POST /leases/{id}/decompose}: creates the children under the item
	 * atomically; the item waits until every child is terminal.
	 */
	public Decomposed decompose(LeaseRef lease, List<NewChild> children, String reason) {
		Map<String, Object> body = fenced(lease, "children", children);
		putIfPresent(body, "reason", reason);
		return call(Call.post(leasePath(lease, "decompose"), body), type(Decomposed.class));
	}

	/**
	 * {@code POST /leases/{id}/attention-requests}: asks a human. A blocking request ends
	 * the lease ({@code attention_requested}) and holds the item until answered.
	 */
	public AttentionRequest requestAttention(LeaseRef lease, NewAttentionRequest request) {
		Map<String, Object> body = fenced(lease, "question", request.question());
		body.put("blocking", request.blocking());
		putIfPresent(body, "context", request.context());
		return call(Call.post(leasePath(lease, "attention-requests"), body), ATTENTION_REQUEST);
	}

	/**
	 * {@code POST /completions}: completes up to 500 leases in one request, each fenced
	 * on its own; the results are in request order.
	 */
	public List<CompletionResult> completeAll(List<Completion> completions) {
		return this
			.<CompletionResults>call(Call.post("/completions", Map.of("completions", completions)),
					type(CompletionResults.class))
			.results();
	}

	// Attention requests

	/** {@code GET /attention-requests}: one page, newest first. */
	public AttentionRequestPage listAttentionRequests(AttentionQuery query) {
		return call(Call.get("/attention-requests")
			.query("status", (query.status() != null) ? query.status().name().toLowerCase(java.util.Locale.ROOT) : null)
			.query("itemId", query.itemId())
			.query("limit", query.limit())
			.query("cursor", query.cursor()), type(AttentionRequestPage.class));
	}

	/** {@code GET /attention-requests/{id}}. */
	public AttentionRequest getAttentionRequest(UUID id) {
		return call(Call.get("/attention-requests/" + id), ATTENTION_REQUEST);
	}

	/**
	 * {@code POST /attention-requests/{id}/resolve}: answers the question. With
	 * {@code resolvedBy} null, a service with tokens records the token's name.
	 */
	public AttentionRequest resolveAttentionRequest(UUID id, String resolution, String resolvedBy) {
		Map<String, Object> body = body("resolution", resolution);
		putIfPresent(body, "resolvedBy", resolvedBy);
		return call(Call.post("/attention-requests/" + id + "/resolve", body), ATTENTION_REQUEST);
	}

	// Tokens (admins)

	/** {@code POST /tokens}: a new token; its secret is shown this once. */
	public IssuedToken createToken(NewToken token) {
		return call(Call.post("/tokens", token), type(IssuedToken.class));
	}

	/** {@code GET /tokens}: every token, without secrets. */
	public List<Token> listTokens() {
		return this.<Tokens>call(Call.get("/tokens"), type(Tokens.class)).tokens();
	}

	/**
	 * {@code DELETE /tokens/{id}}: the token stops working with the very next request.
	 */
	public void revokeToken(UUID tokenId) {
		call(Call.delete("/tokens/" + tokenId), null);
	}

	@Override
	public String toString() {
		return "WorkGraphClient[" + this.http.base() + "]";
	}

	// The wire

	private static final JavaType ITEM = type(Item.class);

	private static final JavaType LEASE = type(Lease.class);

	private static final JavaType ENDED = type(EndedLease.class);

	private static final JavaType ATTENTION_REQUEST = type(AttentionRequest.class);

	private static JavaType type(Class<?> type) {
		return Json.MAPPER.constructType(type);
	}

	private <T> T call(Call call, JavaType type) {
		return Http.await(callAsync(call, type), call);
	}

	private <T> CompletableFuture<T> callAsync(Call call, JavaType type) {
		CompletableFuture<Answer> answer = this.http.send(call);
		return Http.cancelling(answer, answer.thenApply((received) -> {
			if (!received.succeeded()) {
				throw this.http.rejection(received);
			}
			if (type == null || received.status() == 204) {
				return null;
			}
			return Http.decode(received, type);
		}));
	}

	private static String leasePath(LeaseRef lease, String action) {
		return "/leases/" + lease.id() + "/" + action;
	}

	private static Map<String, Object> fenced(LeaseRef lease, String name, Object value) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("epoch", lease.epoch());
		putIfPresent(body, name, value);
		return body;
	}

	private static Map<String, Object> body(String name, Object value) {
		Map<String, Object> body = new LinkedHashMap<>();
		putIfPresent(body, name, value);
		return body;
	}

	private static void putIfPresent(Map<String, Object> body, String name, Object value) {
		if (value != null) {
			body.put(name, value);
		}
	}

	private static Duration positive(Duration duration, String name) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException(name + " must be positive");
		}
		return duration;
	}

	private static <T> Stream<T> paged(java.util.function.Function<String, Page<T>> fetch, String firstCursor) {
		Iterator<T> entries = new Iterator<>() {

			private Iterator<T> page = List.<T>of().iterator();

			private String cursor = firstCursor;

			private boolean last;

			@Override
			public boolean hasNext() {
				while (!this.page.hasNext() && !this.last) {
					Page<T> next = fetch.apply(this.cursor);
					this.page = next.entries().iterator();
					this.cursor = next.nextCursor();
					this.last = (this.cursor == null);
				}
				return this.page.hasNext();
			}

			@Override
			public T next() {
				if (!hasNext()) {
					throw new NoSuchElementException();
				}
				return this.page.next();
			}

		};
		return StreamSupport.stream(Spliterators.spliteratorUnknownSize(entries, Spliterator.ORDERED), false);
	}

	private record Page<T>(List<T> entries, String nextCursor) {
	}

	private record Claims(List<Claim> claims) {

		Claims {
			claims = (claims != null) ? List.copyOf(claims) : List.of();
		}

	}

	private record CompletionResults(List<CompletionResult> results) {

		CompletionResults {
			results = (results != null) ? List.copyOf(results) : List.of();
		}

	}

	private record Tokens(List<Token> tokens) {

		Tokens {
			tokens = (tokens != null) ? List.copyOf(tokens) : List.of();
		}

	}

	/** Settings of a {@link WorkGraphClient}. */
	public static final class Builder {

		private final URI baseUrl;

		private Supplier<String> token;

		private Duration requestTimeout = Duration.ofSeconds(30);

		private Duration connectTimeout = Duration.ofSeconds(5);

		private HttpClient httpClient;

		private Clock clock = Clock.systemUTC();

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

		/** The wall clock, used only to read {@code Retry-After} dates. */
		Builder clock(Clock clock) {
			this.clock = clock;
			return this;
		}

		public WorkGraphClient build() {
			HttpClient client = (this.httpClient != null) ? this.httpClient : HttpClient.newBuilder()
				// Plain HTTP/1.1: no h2c upgrade dance with servlet containers.
				.version(HttpClient.Version.HTTP_1_1)
				.connectTimeout(this.connectTimeout)
				.followRedirects(HttpClient.Redirect.NEVER)
				.build();
			return new WorkGraphClient(
					new Http(client, this.baseUrl, this.token, this.requestTimeout, userAgent(), this.clock));
		}

		private static String userAgent() {
			String version = WorkGraphClient.class.getPackage().getImplementationVersion();
			return "work-graph-client" + ((version != null) ? "/" + version : "") + " Java/"
					+ System.getProperty("java.version");
		}

	}

}
