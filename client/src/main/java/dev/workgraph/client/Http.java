package dev.workgraph.client;

import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import dev.workgraph.client.problem.Problem;
import dev.workgraph.client.problem.RequestInterrupted;
import dev.workgraph.client.problem.RequestRejected;
import dev.workgraph.client.problem.ServiceUnreachable;
import dev.workgraph.client.problem.UnexpectedResponse;
import dev.workgraph.client.problem.WorkGraphException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;

/**
 * The wire: builds requests (base URL, JSON body, bearer token), sends them with the
 * JDK's {@link HttpClient}, and turns what comes back into values or exceptions. Failures
 * become {@link WorkGraphException}s: a problem answer its {@link RequestRejected}
 * subclass, a connection or timeout failure {@link ServiceUnreachable}.
 */
final class Http {

	private static final String ACCEPT = "application/json, application/problem+json";

	private final HttpClient client;

	private final String base;

	private final Supplier<String> token;

	private final Duration requestTimeout;

	private final String userAgent;

	private final Clock clock;

	private final Supplier<String> traceparent;

	Http(HttpClient client, URI base, Supplier<String> token, Duration requestTimeout, String userAgent, Clock clock,
			Supplier<String> traceparent) {
		this.client = client;
		this.traceparent = traceparent;
		String text = base.toString();
		this.base = text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
		this.token = token;
		this.requestTimeout = requestTimeout;
		this.userAgent = userAgent;
		this.clock = clock;
	}

	/** The JDK client a client builder makes when it is given none. */
	static HttpClient client(Duration connectTimeout) {
		return HttpClient.newBuilder()
			// Plain HTTP/1.1: no h2c upgrade dance with servlet containers.
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(connectTimeout)
			.followRedirects(HttpClient.Redirect.NEVER)
			.build();
	}

	/** {@code work-graph-client/<version> Java/<version>}. */
	static String userAgent() {
		String version = Http.class.getPackage().getImplementationVersion();
		return "work-graph-client" + ((version != null) ? "/" + version : "") + " Java/"
				+ System.getProperty("java.version");
	}

	Http withRequestTimeout(Duration timeout) {
		return new Http(this.client, URI.create(this.base), this.token, timeout, this.userAgent, this.clock,
				this.traceparent);
	}

	Duration requestTimeout() {
		return this.requestTimeout;
	}

	String base() {
		return this.base;
	}

	/** The JDK client, which also opens the worker stream. */
	HttpClient httpClient() {
		return this.client;
	}

	/** The bearer token to send now, or null. */
	String bearer() {
		return (this.token != null) ? this.token.get() : null;
	}

	/**
	 * Sends a request and waits for its answer, read as this type (null: none is
	 * expected).
	 */
	<T> T call(Call call, JavaType type) {
		return await(callAsync(call, type), call);
	}

	/**
	 * {@link #call} without waiting: the future fails with the answer's
	 * {@link RequestRejected}, or as {@link #send} does.
	 */
	<T> CompletableFuture<T> callAsync(Call call, JavaType type) {
		CompletableFuture<Answer> answer = send(call);
		return cancelling(answer, answer.thenApply((received) -> {
			if (!received.succeeded()) {
				throw rejection(received);
			}
			if (type == null || received.status() == 204) {
				return null;
			}
			return decode(received, type);
		}));
	}

	/** Sends a request; the future fails with a {@link WorkGraphException} only. */
	CompletableFuture<Answer> send(Call call) {
		HttpRequest request;
		try {
			request = build(call);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<HttpResponse<String>> exchange = this.client.sendAsync(request,
				HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
		return cancelling(exchange, exchange.handle((response, failure) -> {
			if (failure != null) {
				throw unreachable(call, failure);
			}
			return new Answer(call, response.statusCode(), response.body(), response.headers());
		}));
	}

	/**
	 * Makes cancelling {@code dependent} cancel {@code source} too (a dependent stage
	 * does not do that by itself), so that cancelling any stage derived from a request
	 * aborts the exchange: how a long-poll claim is called off.
	 */
	static <T> CompletableFuture<T> cancelling(CompletableFuture<?> source, CompletableFuture<T> dependent) {
		dependent.whenComplete((value, failure) -> {
			if (dependent.isCancelled()) {
				source.cancel(true);
			}
		});
		return dependent;
	}

	/**
	 * Waits for an answer. An interrupt abandons the request (the exchange is cancelled)
	 * and throws {@link RequestInterrupted} with the thread's interrupt flag set again.
	 */
	static <T> T await(CompletableFuture<T> future, Call call) {
		try {
			return future.get();
		}
		catch (InterruptedException ex) {
			future.cancel(true);
			Thread.currentThread().interrupt();
			throw new RequestInterrupted("Interrupted while waiting for " + call, ex);
		}
		catch (ExecutionException ex) {
			throw rethrowable(ex.getCause(), call);
		}
		catch (CancellationException ex) {
			throw new RequestInterrupted("Cancelled while waiting for " + call, new InterruptedException());
		}
	}

	/**
	 * The failure of a future as the exception to throw in the caller's thread, with the
	 * caller's stack (the original, from the HTTP thread, as the cause).
	 */
	static WorkGraphException rethrowable(Throwable failure, Call call) {
		Throwable cause = unwrap(failure);
		if (cause instanceof RequestRejected rejected) {
			return RequestRejected.of(rejected.problem(), rejected.retryAfter().orElse(null));
		}
		if (cause instanceof ServiceUnreachable unreachable) {
			return new ServiceUnreachable(unreachable.getMessage(), unreachable.getCause(),
					unreachable.requestMayHaveBeenProcessed(), unreachable.timedOut());
		}
		if (cause instanceof WorkGraphException known) {
			return known;
		}
		return new UnexpectedResponse("Failed while handling the answer to " + call + ": " + cause, 0, cause);
	}

	static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/** The body of a successful answer as the given type. */
	private static <T> T decode(Answer answer, JavaType type) {
		if (answer.body().isEmpty()) {
			throw new UnexpectedResponse(answer.call() + " answered " + answer.status() + " without a body",
					answer.status(), null);
		}
		try {
			return Json.MAPPER.readValue(answer.body(), type);
		}
		catch (JacksonException ex) {
			throw new UnexpectedResponse(answer.call() + " answered " + answer.status()
					+ " with a body that is not the JSON expected: " + ex.getOriginalMessage(), answer.status(), ex);
		}
	}

	/** The exception for an answer whose status is not a success. */
	private RequestRejected rejection(Answer answer) {
		Duration retryAfter = RetryAfter.parse(answer.headers().firstValue("Retry-After").orElse(null),
				this.clock.instant());
		return RequestRejected.of(problemOf(answer), retryAfter);
	}

	private static Problem problemOf(Answer answer) {
		if (!answer.body().isEmpty()) {
			try {
				JsonNode json = Json.MAPPER.readTree(answer.body());
				if (json.isObject() && json.path("code").isString()) {
					return Problem.fromJson((tools.jackson.databind.node.ObjectNode) json);
				}
			}
			catch (JacksonException ex) {
				// not a problem document: a proxy's page, say
			}
		}
		return Problem.synthesized(answer.status(), null, answer.call() + " answered " + answer.status()
				+ (answer.body().isEmpty() ? "" : ": " + abbreviate(answer.body())));
	}

	private HttpRequest build(Call call) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + call.pathAndQuery()))
			.timeout((call.timeout() != null) ? call.timeout() : this.requestTimeout)
			.header("Accept", ACCEPT)
			.header("User-Agent", this.userAgent);
		String bearer = (this.token != null) ? this.token.get() : null;
		if (bearer != null && !bearer.isEmpty()) {
			request.header("Authorization", "Bearer " + bearer);
		}
		String trace = (this.traceparent != null) ? this.traceparent.get() : null;
		if (trace != null && !trace.isEmpty()) {
			request.header("traceparent", trace);
		}
		call.headers().forEach(request::header);
		if (call.body() != null) {
			request.header("Content-Type", "application/json")
				.method(call.method(), HttpRequest.BodyPublishers.ofString(Json.MAPPER.writeValueAsString(call.body()),
						StandardCharsets.UTF_8));
		}
		else {
			request.method(call.method(), HttpRequest.BodyPublishers.noBody());
		}
		return request.build();
	}

	private static ServiceUnreachable unreachable(Call call, Throwable failure) {
		Throwable cause = unwrap(failure);
		boolean connectFailed = cause instanceof HttpConnectTimeoutException || causedBy(cause, ConnectException.class)
				|| causedBy(cause, UnresolvedAddressException.class);
		boolean timedOut = cause instanceof HttpTimeoutException;
		String what = timedOut ? "timed out" : connectFailed ? "could not connect" : "failed";
		String message = call + " " + what + ((cause.getMessage() != null) ? ": " + cause.getMessage() : "")
				+ (connectFailed ? "" : " (the service may have processed it)");
		return new ServiceUnreachable(message, cause, !connectFailed, timedOut);
	}

	private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return true;
			}
		}
		return false;
	}

	private static String abbreviate(String text) {
		String line = text.strip().replaceAll("\\s+", " ");
		return (line.length() > 200) ? line.substring(0, 200) + "…" : line;
	}

	/** One request: method, path, query, JSON body (or null), extra headers, timeout. */
	record Call(String method, String path, Map<String, Object> query, Object body, Map<String, String> headers,
			Duration timeout) {

		static Call get(String path) {
			return new Call("GET", path, Map.of(), null, Map.of(), null);
		}

		static Call post(String path, Object body) {
			return new Call("POST", path, Map.of(), body, Map.of(), null);
		}

		static Call delete(String path) {
			return new Call("DELETE", path, Map.of(), null, Map.of(), null);
		}

		Call query(String name, Object value) {
			if (value == null) {
				return this;
			}
			Map<String, Object> query = new LinkedHashMap<>(this.query);
			query.put(name, value);
			return new Call(this.method, this.path, query, this.body, this.headers, this.timeout);
		}

		Call header(String name, String value) {
			if (value == null) {
				return this;
			}
			Map<String, String> headers = new LinkedHashMap<>(this.headers);
			headers.put(name, value);
			return new Call(this.method, this.path, this.query, this.body, headers, this.timeout);
		}

		Call timeout(Duration timeout) {
			return new Call(this.method, this.path, this.query, this.body, this.headers, timeout);
		}

		String pathAndQuery() {
			if (this.query.isEmpty()) {
				return this.path;
			}
			return this.path + "?"
					+ this.query.entrySet()
						.stream()
						.map((entry) -> encode(entry.getKey()) + "=" + encode(String.valueOf(entry.getValue())))
						.collect(Collectors.joining("&"));
		}

		private static String encode(String text) {
			return URLEncoder.encode(text, StandardCharsets.UTF_8);
		}

		@Override
		public String toString() {
			return this.method + " " + this.path;
		}

	}

	/** What came back: status, body text (empty when none) and headers. */
	record Answer(Call call, int status, String body, HttpHeaders headers) {

		boolean succeeded() {
			return this.status >= 200 && this.status < 300;
		}

	}

}
