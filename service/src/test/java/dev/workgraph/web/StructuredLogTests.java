package dev.workgraph.web;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.logging.logback.StructuredLogEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code logging.structured.format.console=ecs} every line is a JSON object, and the
 * lines written while serving a request carry its id, lease and item (docs/operations.md,
 * "Logs"). The log is written here by the encoder that setting selects, Spring Boot's
 * {@link StructuredLogEncoder}, attached to the running service's logging (the logging
 * configuration itself is set up once per test JVM).
 */
class StructuredLogTests extends ServiceTest {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Autowired
	private LoggingSystem loggingSystem;

	@Test
	void ecsLinesCarryTheRequestContext() {
		LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
		StructuredLogEncoder encoder = new StructuredLogEncoder();
		encoder.setFormat("ecs");
		encoder.setContext(context);
		encoder.start();
		ByteArrayOutputStream written = new ByteArrayOutputStream();
		OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
		appender.setContext(context);
		appender.setEncoder(encoder);
		appender.setOutputStream(written);
		appender.start();
		Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
		this.loggingSystem.setLogLevel("dev.workgraph.web.RequestLog", LogLevel.DEBUG);
		root.addAppender(appender);
		Api.Response created;
		Api.Response claimed;
		try {
			created = this.api.post("/items", Map.of("title", "json logged"));
			claimed = this.api.post("/claims", Map.of("workerId", "w"), Map.of("X-Request-Id", "json-claim-1"));
			// The answer leaves whole before the request's line is logged (see
			// RequestIdFilter): the client can have it first.
			Eventually.until("the claim's request log line", Duration.ofSeconds(5), Duration.ofMillis(10),
					() -> written.toString(StandardCharsets.UTF_8).contains("POST /claims answered"));
		}
		finally {
			root.detachAppender(appender);
			appender.stop();
			this.loggingSystem.setLogLevel("dev.workgraph.web.RequestLog", null);
		}
		assertThat(claimed.status()).isEqualTo(201);

		List<JsonNode> lines = new ArrayList<>();
		for (String line : written.toString(StandardCharsets.UTF_8).split("\n")) {
			if (!line.isBlank()) {
				lines.add(JSON.readTree(line));
			}
		}
		JsonNode requestLine = lines.stream()
			.filter((line) -> "json-claim-1".equals(line.path("requestId").asString(null)))
			.filter((line) -> line.toString().contains("RequestLog"))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no request log line for json-claim-1 in " + lines));
		assertThat(requestLine.path("leaseId").asString())
			.isEqualTo(claimed.body().path("lease").path("id").asString());
		assertThat(requestLine.path("itemId").asString()).isEqualTo(created.body().path("id").asString());
		assertThat(requestLine.path("message").asString()).contains("POST /claims answered 201");
		assertThat(requestLine.path("@timestamp").isMissingNode()).isFalse();
	}

}
