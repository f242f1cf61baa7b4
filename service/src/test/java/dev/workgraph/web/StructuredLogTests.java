package dev.workgraph.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.TestDatabaseConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code logging.structured.format.console=ecs} every line is a JSON object, and the
 * lines written while serving a request carry its id, lease and item (docs/operations.md,
 * "Logs"). A context of its own, closed afterwards so that later tests log as usual.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "workgraph.lease.reaper-enabled=false", "workgraph.lease.vacuum-interval=0s",
				"workgraph.metrics.gauge-interval=0s", "logging.structured.format.console=ecs",
				"logging.level.dev.workgraph.web.RequestLog=debug",
				"logging.config=classpath:logback-structured-test.xml" })
@Import(TestDatabaseConfiguration.class)
@DirtiesContext
@ExtendWith(OutputCaptureExtension.class)
class StructuredLogTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Test
	void linesAreJsonWithTheRequestContext(CapturedOutput output) {
		Api api = new Api(this.port);
		Api.Response created = api.post("/items", Map.of("title", "json logged", "queue", "structured-logs"));
		assertThat(created.status()).isEqualTo(201);
		Api.Response claimed = api.post("/claims", Map.of("workerId", "w", "queues", List.of("structured-logs")),
				Map.of("X-Request-Id", "json-claim-1"));
		assertThat(claimed.status()).isEqualTo(201);

		List<JsonNode> lines = new ArrayList<>();
		for (String line : output.getOut().split("\n")) {
			if (line.contains("json-claim-1")) {
				lines.add(JSON.readTree(line));
			}
		}
		assertThat(lines).isNotEmpty();
		JsonNode requestLine = lines.stream()
			.filter((line) -> line.toString().contains("RequestLog"))
			.findFirst()
			.orElseThrow();
		assertThat(requestLine.path("requestId").asString()).isEqualTo("json-claim-1");
		assertThat(requestLine.path("leaseId").asString())
			.isEqualTo(claimed.body().path("lease").path("id").asString());
		assertThat(requestLine.path("itemId").asString()).isEqualTo(created.body().path("id").asString());
		assertThat(requestLine.path("message").asString()).contains("POST /claims answered 201");
	}

}
