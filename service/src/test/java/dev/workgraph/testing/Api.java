package dev.workgraph.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.MissingNode;

/**
 * A plain HTTP client for the service under test: real sockets, real Tomcat, every status
 * returned as a value (never an exception), bodies parsed as JSON trees.
 */
public final class Api {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final String base;

	/** Sent with every request (before any a call adds): e.g. Authorization. */
	private final Map<String, String> headers;

	public Api(int port) {
		this("http://127.0.0.1:" + port, Map.of());
	}

	private Api(String base, Map<String, String> headers) {
		this.base = base;
		this.headers = headers;
	}

	/**
	 * The same client sending {@code Authorization: Bearer <token>} with every request.
	 */
	public Api as(String token) {
		return new Api(this.base, Map.of("Authorization", "Bearer " + token));
	}

	/**
	 * The same client sending this {@code Authorization} header (any scheme) with every
	 * request.
	 */
	public Api withAuthorization(String authorization) {
		return new Api(this.base, Map.of("Authorization", authorization));
	}

	public Response get(String path) {
		return send(HttpRequest.newBuilder(uri(path)).GET());
	}

	public Response post(String path, Object body) {
		return send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json(body))));
	}

	public Response post(String path, Object body, Map<String, String> headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json(body)));
		headers.forEach(request::header);
		return send(request);
	}

	public Response patch(String path, Object body) {
		return send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.method("PATCH", HttpRequest.BodyPublishers.ofString(json(body))));
	}

	public Response delete(String path) {
		return send(HttpRequest.newBuilder(uri(path)).DELETE());
	}

	/** Sends exactly these bytes with exactly these headers, for hostile-input tests. */
	public Response raw(String method, String path, byte[] body, Map<String, String> headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
			.method(method, (body != null) ? HttpRequest.BodyPublishers.ofByteArray(body)
					: HttpRequest.BodyPublishers.noBody());
		headers.forEach(request::header);
		return send(request);
	}

	public String base() {
		return this.base;
	}

	private URI uri(String path) {
		return URI.create(this.base + path);
	}

	private static String json(Object body) {
		return (body instanceof String text) ? text : JSON.writeValueAsString(body);
	}

	private Response send(HttpRequest.Builder request) {
		this.headers.forEach(request::header);
		try {
			HttpResponse<String> response = this.client.send(request.timeout(Duration.ofSeconds(60)).build(),
					HttpResponse.BodyHandlers.ofString());
			JsonNode body = MissingNode.getInstance();
			// Metrics, YAML, HTML and scripts are not JSON: their text is in raw().
			boolean json = response.headers()
				.firstValue("Content-Type")
				.map((type) -> type.contains("json"))
				.orElse(true);
			if (!response.body().isEmpty() && json) {
				body = JSON.readTree(response.body());
			}
			return new Response(response.statusCode(), body, response);
		}
		catch (IOException ex) {
			throw new IllegalStateException("HTTP request failed: " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A response: the status, the JSON body (missing when empty) and the raw exchange.
	 */
	public record Response(int status, JsonNode body, HttpResponse<String> raw) {

		public String code() {
			return this.body.path("code").asString(null);
		}

		public UUID id() {
			return UUID.fromString(this.body.path("id").asString());
		}

		public String header(String name) {
			return this.raw.headers().firstValue(name).orElse(null);
		}

		@Override
		public String toString() {
			return this.status + " " + this.raw.body();
		}

	}

}
