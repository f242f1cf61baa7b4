package dev.workgraph.mcp;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.workgraph.tracing.TraceHeaders;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.NullNode;

import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;

/**
 * The HTTP calls the tools stand for, made to this service itself with the session's own
 * bearer token. Going through HTTP rather than calling the features' classes is the
 * point: a tool call is validated, authorized, fenced and answered by exactly the code
 * that answers the same call from any other client, so the two can never drift apart
 * (docs/adr/0020-mcp-server.md).
 */
@Component
class ServiceCalls {

	/** Time for the service to answer on top of any wait the call itself asks for. */
	private static final Duration ANSWER_TIME = Duration.ofSeconds(30);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final JsonMapper json;

	private final Environment environment;

	private final TraceHeaders traceHeaders;

	private volatile URI base;

	ServiceCalls(JsonMapper json, Environment environment, McpProperties properties, TraceHeaders traceHeaders) {
		this.json = json;
		this.traceHeaders = traceHeaders;
		this.environment = environment;
		this.base = properties.serviceUrl();
	}

	/**
	 * Learns this instance's port (random in tests) unless a service URL was configured.
	 */
	@EventListener
	void serverStarted(WebServerInitializedEvent event) {
		if (this.base != null || event.getApplicationContext().getServerNamespace() != null) {
			return; // configured, or the management server
		}
		String address = this.environment.getProperty("server.address", "127.0.0.1");
		if (address.equals("0.0.0.0") || address.equals("::")) {
			address = "127.0.0.1";
		}
		String host = address.contains(":") ? "[" + address + "]" : address;
		String scheme = this.environment.getProperty("server.ssl.enabled", Boolean.class, false) ? "https" : "http";
		String contextPath = this.environment.getProperty("server.servlet.context-path", "");
		this.base = URI.create(scheme + "://" + host + ":" + event.getWebServer().getPort() + contextPath);
	}

	Answer get(String path, String authorization) {
		return send(request(path, authorization, Duration.ZERO).GET());
	}

	Answer post(String path, Object body, String authorization) {
		return post(path, body, authorization, Duration.ZERO);
	}

	/** A POST that may take {@code wait} longer than usual (a long-poll claim). */
	Answer post(String path, Object body, String authorization, Duration wait) {
		return send(request(path, authorization, wait).header(HttpHeaders.CONTENT_TYPE, "application/json")
			.POST(HttpRequest.BodyPublishers.ofByteArray(this.json.writeValueAsBytes(body))));
	}

	private HttpRequest.Builder request(String path, String authorization, Duration wait) {
		URI base = this.base;
		if (base == null) {
			throw new IllegalStateException("The service's own address is not known yet");
		}
		HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path))
			.timeout(ANSWER_TIME.plus(wait))
			.header(HttpHeaders.ACCEPT, "application/json");
		if (authorization != null) {
			builder.header(HttpHeaders.AUTHORIZATION, authorization);
		}
		// The call continues the trace of the tool call that makes it.
		this.traceHeaders.current().forEach(builder::header);
		return builder;
	}

	private Answer send(HttpRequest.Builder request) {
		try {
			HttpResponse<byte[]> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
			JsonNode body = (response.body().length == 0) ? NullNode.getInstance()
					: this.json.readTree(response.body());
			return new Answer(response.statusCode(), body);
		}
		catch (IOException ex) {
			throw new ServiceUnreachable(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ServiceUnreachable(ex);
		}
	}

	/**
	 * What the service answered: the status and the JSON body ({@code null} node when
	 * there was none, as with 204).
	 */
	record Answer(int status, JsonNode body) {

		boolean succeeded() {
			return this.status >= 200 && this.status < 300;
		}

		/** The problem's {@code code}, or null when the answer is no problem. */
		String code() {
			JsonNode code = this.body.path("code");
			return code.isString() ? code.asString() : null;
		}

	}

	/** The service could not be reached over HTTP from itself (shutting down, say). */
	static class ServiceUnreachable extends RuntimeException {

		ServiceUnreachable(Exception cause) {
			super("The service could not be reached: " + cause.getMessage(), cause);
		}

	}

}
