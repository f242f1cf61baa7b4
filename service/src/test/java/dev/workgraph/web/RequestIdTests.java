package dev.workgraph.web;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every answer carries an {@code X-Request-Id}; every line logged while serving a request
 * carries its id and the lease and item it acts on; no token or body reaches the log
 * (docs/operations.md, "Logs"). The log is read as the logging system sees it: every
 * event with its context, at DEBUG for the service and Spring's web layer.
 */
class RequestIdTests extends ServiceTest {

	private static final String TOKEN = "tok-5f3e-never-logged";

	private static final String BODY_SECRET = "body-9c1d-never-logged";

	@Autowired
	private LoggingSystem loggingSystem;

	private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();

	private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {

		@Override
		protected void append(ILoggingEvent event) {
			event.prepareForDeferredProcessing();
			RequestIdTests.this.events.add(event);
		}

	};

	@BeforeEach
	void captureTheLog() {
		this.loggingSystem.setLogLevel("dev.workgraph", LogLevel.DEBUG);
		this.loggingSystem.setLogLevel("org.springframework.web", LogLevel.DEBUG);
		this.appender.start();
		root().addAppender(this.appender);
	}

	@AfterEach
	void stopCapturing() {
		root().detachAppender(this.appender);
		this.loggingSystem.setLogLevel("dev.workgraph", null);
		this.loggingSystem.setLogLevel("org.springframework.web", null);
	}

	@Test
	void aSaneRequestIdIsEchoed() {
		for (String id : List.of("abc-123", "0b6d3a46-0c55-4f7e-a2c4-1b6f4f3b6a7e", "trace:1.2_3", "x".repeat(128))) {
			assertThat(get("/items", id).raw().headers().firstValue("X-Request-Id")).hasValue(id);
		}
	}

	@Test
	void anAbsentOrInsaneRequestIdIsReplacedByAGeneratedOne() {
		Api.Response answered = this.api.get("/items");
		String generated = answered.raw().headers().firstValue("X-Request-Id").orElseThrow();
		assertThat(UUID.fromString(generated)).isNotNull();
		for (String insane : List.of("has space", "x".repeat(129), "<script>", "a\"b", "")) {
			String id = get("/items", insane).raw().headers().firstValue("X-Request-Id").orElseThrow();
			assertThat(id).isNotEqualTo(insane);
			assertThat(UUID.fromString(id)).isNotNull();
		}
		assertThat(this.api.get("/items").raw().headers().firstValue("X-Request-Id")).isNotEqualTo(generated);
	}

	@Test
	void everyAnswerCarriesAnId() {
		List<Api.Response> answers = List.of(this.api.get("/items/" + UUID.randomUUID()), // 404
				this.api.post("/items", Map.of("title", "")), // 422
				this.api.raw("POST", "/items", "{".getBytes(), Map.of("Content-Type", "application/json")), // 400
				this.api.raw("POST", "/items", new byte[11 * 1024 * 1024], Map.of("Content-Type", "application/json")), // 413
				this.api.post("/claims", Map.of("workerId", "w")), // 204
				this.api.raw("PATCH", "/items", null, Map.of()), // 405
				this.api.get("/actuator/health"));
		assertThat(answers)
			.allSatisfy((answer) -> assertThat(answer.raw().headers().firstValue("X-Request-Id")).as(answer.toString())
				.isPresent());
	}

	@Test
	void linesLoggedWhileServingCarryTheRequestLeaseAndItem() {
		UUID item = createItem("logged");
		this.events.clear();
		Api.Response claimed = this.api.post("/claims", Map.of("workerId", "w"), Map.of("X-Request-Id", "claim-1"));
		UUID lease = UUID.fromString(claimed.body().path("lease").path("id").asString());
		Api.Response completed = this.api.post("/leases/" + lease + "/complete", Map.of("epoch", 1),
				Map.of("X-Request-Id", "complete-1"));
		assertThat(completed.status()).isEqualTo(200);
		Api.Response stale = this.api.post("/leases/" + lease + "/complete", Map.of("epoch", 1),
				Map.of("X-Request-Id", "stale-1"));
		assertThat(stale.code()).isEqualTo("lease_ended");

		for (String requestId : List.of("claim-1", "complete-1", "stale-1")) {
			awaitRequestLogLine(requestId);
			List<ILoggingEvent> lines = linesOf(requestId);
			// At least the request log's line; whatever else was logged for it carries
			// the
			// same context.
			assertThat(lines).as(requestId).isNotEmpty();
			assertThat(lines).anySatisfy((line) -> assertThat(line.getLoggerName()).endsWith("RequestLog"));
			ILoggingEvent last = lines.getLast();
			assertThat(last.getMDCPropertyMap()).containsEntry("leaseId", lease.toString())
				.containsEntry("itemId", item.toString());
		}
		// The thread serves other requests afterwards: nothing of this one is left
		// behind.
		this.events.clear();
		get("/items", "later-1");
		awaitRequestLogLine("later-1");
		assertThat(linesOf("later-1"))
			.allSatisfy((line) -> assertThat(line.getMDCPropertyMap()).doesNotContainKeys("leaseId", "itemId"));
	}

	@Test
	void noTokenOrBodyIsLogged() {
		Map<String, String> headers = Map.of("Authorization", "Bearer " + TOKEN, "X-Request-Id", "secret-1");
		this.api.post("/items", Map.of("title", "t", "metadata", Map.of("password", BODY_SECRET)), headers);
		this.api.post("/items", Map.of("title", BODY_SECRET, "unknownField", BODY_SECRET), headers);
		this.api.post("/items", "{\"title\": \"" + BODY_SECRET + "\"", headers);
		this.api.post("/items", Map.of("title", "x".repeat(300) + BODY_SECRET), headers);
		JsonNode claim = this.api.post("/claims", Map.of("workerId", BODY_SECRET), headers).body();
		this.api.post("/leases/" + leaseId(claim) + "/complete",
				Map.of("epoch", epoch(claim), "result", Map.of("k", BODY_SECRET)), headers);
		Eventually.until("the request log lines of all six requests", Duration.ofSeconds(5), Duration.ofMillis(10),
				() -> requestLogLines("secret-1") == 6);
		assertThat(this.events).allSatisfy((event) -> {
			String text = event.getFormattedMessage() + " " + event.getMDCPropertyMap()
					+ ((event.getThrowableProxy() != null) ? " " + event.getThrowableProxy().getMessage() : "");
			assertThat(text).doesNotContain(TOKEN).doesNotContain(BODY_SECRET);
		});
	}

	private Api.Response get(String path, String requestId) {
		return this.api.raw("GET", path, null, Map.of("X-Request-Id", requestId));
	}

	/**
	 * An answer leaves whole before its request's line is logged (RequestIdFilter logs
	 * after the chain returns), so the client may read it first.
	 */
	private void awaitRequestLogLine(String requestId) {
		Eventually.until("the request log line of " + requestId, Duration.ofSeconds(5), Duration.ofMillis(10),
				() -> requestLogLines(requestId) > 0);
	}

	private long requestLogLines(String requestId) {
		return linesOf(requestId).stream().filter((event) -> event.getLoggerName().endsWith("RequestLog")).count();
	}

	private List<ILoggingEvent> linesOf(String requestId) {
		return this.events.stream()
			.filter((event) -> requestId.equals(event.getMDCPropertyMap().get("requestId")))
			.toList();
	}

	private static Logger root() {
		return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
	}

}
