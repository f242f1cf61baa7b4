package dev.workgraph.openapi;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.FreshDatabase;
import dev.workgraph.testing.ServiceInstance;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API document as an outside tool and an operator see it: a service of its own starts
 * and answers its first {@code /v3/api-docs} request without logging a stack trace, and
 * Redocly CLI's recommended rules find nothing in the document.
 */
@ExtendWith(OutputCaptureExtension.class)
class ApiDocumentLintTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static FreshDatabase database;

	private static ServiceInstance service;

	private static String startAndFirstRequest;

	private static JsonNode document;

	@BeforeAll
	static void startAndAskForTheDocument(CapturedOutput output) {
		database = FreshDatabase.create();
		service = ServiceInstance.start("api-document-lint", database);
		Api.Response answer = service.api().get("/v3/api-docs");
		assertThat(answer.status()).isEqualTo(200);
		document = answer.body();
		startAndFirstRequest = output.getAll();
	}

	@AfterAll
	static void stop() {
		if (service != null) {
			service.close();
		}
		if (database != null) {
			database.close();
		}
	}

	@Test
	void aStartAndTheFirstDocumentRequestLogNoStackTrace() {
		List<String> traces = startAndFirstRequest.lines()
			.filter((line) -> line.matches("\\s+at [\\w.$/]+\\(.*\\)") || line.contains("Graceful exception"))
			.limit(5)
			.toList();
		assertThat(traces).as(startAndFirstRequest).isEmpty();
		assertThat(startAndFirstRequest).contains("Init duration for springdoc-openapi");
	}

	@Test
	void redoclysRecommendedRulesFindNothing() throws Exception {
		RedoclyCli redocly = RedoclyCli.installed();
		Path file = Files.createDirectories(Path.of("target", "api-document-lint")).resolve("api-docs.json");
		Files.writeString(file, document.toPrettyString());
		RedoclyCli.Result lint = redocly.lint(file.toAbsolutePath());
		String report = lint.output();
		JsonNode totals = JSON.readTree(report.substring(Math.max(0, report.indexOf('{')))).path("totals");
		assertThat(totals.path("errors").asInt(-1)).as(lint.toString()).isZero();
		assertThat(totals.path("warnings").asInt(-1)).as(lint.toString()).isZero();
		assertThat(lint.exitCode()).as(lint.toString()).isZero();
	}

}
