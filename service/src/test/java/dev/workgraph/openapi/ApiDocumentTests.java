package dev.workgraph.openapi;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.workgraph.problem.ProblemCode;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API document ({@code /v3/api-docs}) lists every endpoint the service serves, says
 * for each which problems it can answer and how to authenticate, and its schemas describe
 * the answers the service really gives.
 */
class ApiDocumentTests extends LeaseTestSupport {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Autowired
	@Qualifier("requestMappingHandlerMapping")
	private RequestMappingHandlerMapping mappings;

	@Test
	void isOpenApi31WithTheBearerScheme() {
		JsonNode document = document();
		assertThat(document.path("openapi").asString()).startsWith("3.1");
		assertThat(document.path("components").path("securitySchemes").path("bearerAuth").path("scheme").asString())
			.isEqualTo("bearer");
		assertThat(document.path("security").toString()).contains("bearerAuth");
	}

	@Test
	void listsEveryEndpointOfTheService() {
		Set<String> served = new TreeSet<>();
		this.mappings.getHandlerMethods().forEach((RequestMappingInfo info, HandlerMethod method) -> {
			if (method.getBeanType().getPackageName().startsWith("dev.workgraph")) {
				// Not part of the API: where the servlet container forwards its own
				// errors.
				for (String path : info.getPatternValues().stream().filter((p) -> !p.equals("/error")).toList()) {
					info.getMethodsCondition().getMethods().forEach((verb) -> served.add(verb.name() + " " + path));
				}
			}
		});
		assertThat(served).isNotEmpty();
		assertThat(operations(document())).containsAll(served);
	}

	@Test
	void everyOperationListsItsProblemCodes() {
		JsonNode document = document();
		for (String operation : operations(document)) {
			JsonNode responses = operation(document, operation).path("responses");
			Set<String> codes = new HashSet<>();
			for (String status : responses.propertyNames()) {
				JsonNode listed = responses.path(status).path(ApiDocumentation.PROBLEM_CODES);
				listed.forEach((code) -> codes.add(code.asString()));
				if (status.startsWith("4") || status.startsWith("5")) {
					assertThat(listed.isArray()).as(operation + " " + status + " lists its codes").isTrue();
					assertThat(responses.path(status).path("content").path("application/problem+json").path("examples"))
						.as(operation + " " + status + " has an example per code")
						.hasSize(listed.size());
				}
			}
			assertThat(codes).as(operation)
				.contains("unauthenticated", "forbidden", "internal_error", "service_unavailable");
			boolean body = !operation(document, operation).path("requestBody").isMissingNode();
			if (body) {
				assertThat(codes).as(operation)
					.contains("malformed_request", "validation_failed", "payload_too_large", "unsupported_media_type");
			}
			if (operation.contains("{")) {
				assertThat(codes).as(operation).contains("not_found");
			}
		}
		assertThat(codesOf(document, "POST /leases/{leaseId}/complete")).contains("lease_expired", "lease_ended",
				"epoch_mismatch", "open_children", "unmet_dependencies");
		assertThat(codesOf(document, "POST /attention-requests/{id}/resolve")).contains("already_resolved");
	}

	/**
	 * The catalogue ({@code src/main/resources/openapi/operations/*.yaml}) has an entry
	 * for every operation, and every entry says what the reader of Swagger UI and the
	 * authors of generated clients need.
	 */
	@Test
	void everyOperationIsDocumentedForItsUsers() {
		JsonNode document = document();
		OperationCatalogue catalogue = OperationCatalogue.load();
		Set<String> operations = operations(document);
		assertThat(catalogue.operations().keySet()).as("catalogue entries for operations the service does not serve")
			.isSubsetOf(operations);
		Set<String> tags = new HashSet<>();
		document.path("tags").forEach((tag) -> {
			assertThat(tag.path("description").asString()).as("tag " + tag.path("name")).isNotBlank();
			tags.add(tag.path("name").asString());
		});
		Set<String> ids = new HashSet<>();
		for (String key : operations) {
			assertThat(catalogue.operations()).as("""
					%s has no entry in src/main/resources/openapi/operations/*.yaml: add one (operationId, summary, \
					description, its parameters, a request example, its particular problems; see the package \
					description of dev.workgraph.openapi)""".formatted(key)).containsKey(key);
			JsonNode operation = operation(document, key);
			String id = operation.path("operationId").asString();
			assertThat(id).as(key + " operationId").matches("[a-z][a-zA-Z]+");
			assertThat(ids.add(id)).as(key + " operationId " + id + " is unique").isTrue();
			assertThat(operation.path("summary").asString()).as(key + " summary").isNotBlank().hasSizeLessThan(60);
			assertThat(operation.path("description").asString()).as(key + " description").hasSizeGreaterThan(40);
			assertThat(operation.path("tags")).as(key + " tags").hasSize(1);
			assertThat(tags).as(key + " tag").contains(operation.path("tags").path(0).asString());
			operation.path("parameters")
				.forEach((parameter) -> assertThat(parameter.path("description").asString())
					.as(key + " parameter " + parameter.path("name"))
					.isNotBlank());
			JsonNode body = operation.path("requestBody").path("content");
			body.forEach((media) -> assertThat(media.path("examples")).as(key + " request example").isNotEmpty());
		}
	}

	@Test
	void everyProblemCodeHasAnExample() {
		ProblemExamples examples = ProblemExamples.load();
		for (ProblemCode code : ProblemCode.values()) {
			assertThat(examples.has(code)).as(code.code() + " has an example (a detail) in " + ProblemExamples.LOCATION)
				.isTrue();
		}
	}

	@Test
	void swaggerUiIsServed() throws Exception {
		HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build();
		HttpResponse<String> ui = client.send(
				HttpRequest.newBuilder(URI.create(this.api.base() + "/swagger-ui.html")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(ui.statusCode()).isEqualTo(200);
		assertThat(ui.body()).containsIgnoringCase("swagger-ui");
	}

	@Test
	void realAnswersValidateAgainstTheirSchemas() throws Exception {
		JsonNode document = document();
		Validator validator = new Validator(document);
		UUID dependency = UUID
			.fromString(validator
				.check("POST /items", 201,
						this.api.post("/items",
								Map.of("title", "dependency", "metadata", Map.of("k", List.of(1, "two")))))
				.path("id")
				.asString());
		UUID parent = createItem("parent");
		UUID item = UUID.fromString(
				validator
					.check("POST /items", 201,
							this.api.post("/items",
									Map.of("title", "child", "description", "d", "priority", 3, "queue", "docs",
											"parentId", parent.toString(), "metadata", Map.of("a", 1))))
					.path("id")
					.asString());
		validator.check("GET /items/{id}", 200, this.api.get("/items/" + parent));
		validator.check("GET /items", 200, this.api.get("/items?limit=1"));
		validator.check("POST /items/{id}/dependencies", 201,
				this.api.post("/items/" + item + "/dependencies", Map.of("dependsOn", dependency.toString())));
		validator.check("DELETE /items/{id}/dependencies/{dependsOnId}", 204,
				this.api.delete("/items/" + item + "/dependencies/" + dependency));
		JsonNode claim = validator.check("POST /claims", 201,
				this.api.post("/claims", Map.of("workerId", "w", "queues", List.of("docs"), "leaseSeconds", 60)));
		String lease = "/leases/" + leaseId(claim);
		validator.check("GET /leases/{leaseId}", 200, this.api.get(lease));
		validator.check("POST /leases/{leaseId}/renew", 200,
				this.api.post(lease + "/renew", Map.of("epoch", epoch(claim), "leaseSeconds", 60)));
		JsonNode asked = validator.check("POST /leases/{leaseId}/attention-requests", 201,
				this.api.post(lease + "/attention-requests", Map.of("epoch", epoch(claim), "question", "Which?",
						"blocking", false, "context", Map.of("options", List.of("a", "b")))));
		validator.check("GET /attention-requests", 200, this.api.get("/attention-requests?status=open"));
		validator.check("POST /attention-requests/{id}/resolve", 200,
				this.api.post("/attention-requests/" + asked.path("id").asString() + "/resolve",
						Map.of("resolution", "a", "resolvedBy", "alice")));
		validator.check("GET /attention-requests/{id}", 200,
				this.api.get("/attention-requests/" + asked.path("id").asString()));
		validator.check("POST /leases/{leaseId}/complete", 200,
				this.api.post(lease + "/complete", Map.of("epoch", epoch(claim), "result", List.of("any", "json"))));
		validator.check("POST /leases/{leaseId}/complete", 409,
				this.api.post(lease + "/complete", Map.of("epoch", epoch(claim))));
		validator.check("GET /items/{id}/leases", 200, this.api.get("/items/" + item + "/leases"));
		validator.check("GET /items/{id}", 200, this.api.get("/items/" + parent));
		validator.check("GET /items/{id}", 404, this.api.get("/items/" + UUID.randomUUID()));
		validator.check("POST /items", 422, this.api.post("/items", Map.of("title", "")));
		validator.check("POST /items", 400, this.api.post("/items", "{"));
		JsonNode second = validator.check("POST /claims", 201, this.api.post("/claims", Map.of("workerId", "w")));
		validator.check("POST /leases/{leaseId}/decompose", 201,
				this.api.post("/leases/" + leaseId(second) + "/decompose", Mutation.DECOMPOSE.body(epoch(second))));
		JsonNode third = validator.check("POST /claims", 201, this.api.post("/claims", Map.of("workerId", "w")));
		validator.check("POST /leases/{leaseId}/release", 200,
				this.api.post("/leases/" + leaseId(third) + "/release", Map.of("epoch", epoch(third))));
		JsonNode fourth = validator.check("POST /claims", 201, this.api.post("/claims", Map.of("workerId", "w")));
		validator.check("POST /leases/{leaseId}/cancel", 200,
				this.api.post("/leases/" + leaseId(fourth) + "/cancel", Map.of("epoch", epoch(fourth))));
		createItem("chained 1", "queue", "chained");
		createItem("chained 2", "queue", "chained");
		JsonNode fifth = claimFrom("chained", "w");
		Map<String, Object> claimNext = Map.of("queues", List.of("chained"));
		JsonNode next = validator
			.check("POST /leases/{leaseId}/complete", 200, this.api.post("/leases/" + leaseId(fifth) + "/complete",
					Map.of("epoch", epoch(fifth), "claimNext", claimNext)))
			.path("next");
		assertThat(next.path("lease").path("active").asBoolean()).isTrue();
		assertThat(validator
			.check("POST /leases/{leaseId}/complete", 200, this.api.post("/leases/" + leaseId(next) + "/complete",
					Map.of("epoch", epoch(next), "claimNext", claimNext)))
			.path("next")
			.isNull()).isTrue();
		assertThat(document.path("components")
			.path("schemas")
			.path("Completed")
			.path("properties")
			.path("next")
			.path("description")
			.asString()).contains("claimNext");
		validator.check("POST /items/{id}/cancel", 200, this.api.post("/items/" + parent + "/cancel", Map.of()));
		claimUntilEmpty(Map.of("workerId", "w")).forEach(this::complete);
		validator.check("POST /claims", 204, this.api.post("/claims", Map.of("workerId", "w")));
		assertThat(validator.checked).as("answers checked against a schema").isGreaterThan(20);
	}

	private JsonNode document() {
		Api.Response document = this.api.get("/v3/api-docs");
		assertThat(document.status()).isEqualTo(200);
		try {
			// Kept for people reading a test run; not a fixture of any test.
			Files.writeString(Path.of("target", "api-docs.json"), document.body().toPrettyString());
		}
		catch (java.io.IOException ex) {
			// Not needed to pass.
		}
		return document.body();
	}

	private static Set<String> operations(JsonNode document) {
		Set<String> operations = new TreeSet<>();
		for (String path : document.path("paths").propertyNames()) {
			for (String method : document.path("paths").path(path).propertyNames()) {
				if (Set.of("get", "put", "post", "delete", "patch").contains(method)) {
					operations.add(method.toUpperCase(java.util.Locale.ROOT) + " " + path);
				}
			}
		}
		return operations;
	}

	private static JsonNode operation(JsonNode document, String operation) {
		String[] parts = operation.split(" ", 2);
		return document.path("paths").path(parts[1]).path(parts[0].toLowerCase(java.util.Locale.ROOT));
	}

	private static Set<String> codesOf(JsonNode document, String operation) {
		Set<String> codes = new HashSet<>();
		operation(document, operation).path("responses")
			.forEach((response) -> response.path(ApiDocumentation.PROBLEM_CODES)
				.forEach((code) -> codes.add(code.asString())));
		return codes;
	}

	/** Checks answers against the document's schema for their operation and status. */
	private static final class Validator {

		private final JsonNode document;

		private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

		private int checked;

		Validator(JsonNode document) {
			this.document = document;
		}

		JsonNode check(String operation, int status, Api.Response answer) {
			assertThat(answer.status()).as(operation + ": " + answer).isEqualTo(status);
			JsonNode response = operation(this.document, operation).path("responses").path(String.valueOf(status));
			assertThat(response.isMissingNode()).as(operation + " documents " + status).isFalse();
			if (status == 204) {
				assertThat(response.path("content").isEmpty()).as(operation + " 204 has no body").isTrue();
				return answer.body();
			}
			String contentType = answer.raw().headers().firstValue("Content-Type").orElseThrow();
			String media = contentType.split(";")[0];
			JsonNode schema = response.path("content").path(media).path("schema");
			assertThat(schema.isMissingNode()).as(operation + " " + status + " documents " + media).isFalse();
			ObjectNode root = JSON.createObjectNode();
			root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
			root.setAll((ObjectNode) schema);
			root.set("components", this.document.path("components"));
			Schema validator = this.registry.getSchema(root);
			List<Error> errors = new ArrayList<>(validator.validate(answer.body()));
			assertThat(errors).as(operation + " " + status + ": " + answer.body()).isEmpty();
			this.checked++;
			return answer.body();
		}

	}

}
