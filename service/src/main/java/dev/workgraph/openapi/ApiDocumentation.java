package dev.workgraph.openapi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.examples.Example;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.JsonSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.utils.SpringDocUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Completes the document springdoc generates from the controllers (see the package
 * description). Runs once, when the document is first asked for.
 */
@Configuration(proxyBeanMethods = false)
class ApiDocumentation {

	static final String BEARER = "bearerAuth";

	static final String PROBLEM = "Problem";

	/** Lists the codes a problem response can carry, for tools. */
	static final String PROBLEM_CODES = "x-problem-codes";

	static final String PROBLEM_JSON = "application/problem+json";

	/**
	 * Success statuses other than a lone 200 (springdoc documents 200 for a
	 * {@code ResponseEntity}): the body's schema is documented under each but 204.
	 */
	private static final Map<String, Map<Integer, String>> SUCCESS = Map.ofEntries(
			Map.entry("POST /items",
					Map.of(201, "Created", 200, "An Idempotency-Key replayed: the item the first request created")),
			Map.entry("POST /items/{id}/dependencies",
					Map.of(201, "The edge was added", 200, "The edge existed already")),
			Map.entry("DELETE /items/{id}/dependencies/{dependsOnId}", Map.of(204, "Removed")),
			Map.entry("POST /claims",
					Map.of(201, "Claimed: the lease and the item", 204, "Nothing is ready (in the queues asked for)")),
			Map.entry("POST /claims/batch",
					Map.of(201, "Claimed: one lease and item per claim, in claim order", 204,
							"Nothing is ready (in the queues asked for)")),
			Map.entry("POST /leases/{leaseId}/decompose", Map.of(201, "Decomposed: the ended lease and the children")),
			Map.entry("POST /leases/{leaseId}/attention-requests", Map.of(201, "Raised")),
			Map.entry("POST /tokens", Map.of(201, "Issued: the secret is in this answer only")),
			Map.entry("DELETE /tokens/{id}", Map.of(204, "Revoked")));

	static {
		// JSON trees taken as they come (metadata, context, result, the create body read
		// by
		// hand) are any JSON here; Schemas narrows them to objects where they must be.
		SpringDocUtils.getConfig()
			.replaceWithSchema(JsonNode.class, new JsonSchema())
			.replaceWithSchema(ObjectNode.class, new JsonSchema());
	}

	@Bean
	OpenAPI workGraphOpenApi() {
		return new OpenAPI()
			.info(new Info().title("Work Graph")
				.version("1")
				.description("""
						A coordination service through which software agents, and the humans who steer them, \
						share a graph of work: items with dependencies and children, claimed under renewable \
						leases with fencing epochs, and attention requests for a human. Every error is an \
						RFC 9457 problem with a stable `code`; each operation lists the codes it can answer. \
						With access control on, every request needs `Authorization: Bearer <token>`.""")
				.license(new License().name("Apache-2.0")))
			.components(new Components().addSecuritySchemes(BEARER,
					new SecurityScheme().type(SecurityScheme.Type.HTTP)
						.scheme("bearer")
						.description("A Work Graph token (worker, operator or admin)")))
			.addSecurityItem(new SecurityRequirement().addList(BEARER));
	}

	@Bean
	OpenApiCustomizer workGraphProblems() {
		return (openApi) -> {
			openApi.getComponents().addSchemas(PROBLEM, Schemas.problem());
			Schemas.completeRawJson(openApi.getComponents().getSchemas());
			openApi.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, operation) -> {
				String key = method.name() + " " + path;
				RequestExamples.add(key, operation);
				successes(key, operation);
				document(key, path, operation);
			}));
		};
	}

	private static void successes(String key, Operation operation) {
		Map<Integer, String> statuses = SUCCESS.get(key);
		if (statuses == null || operation.getResponses() == null) {
			return;
		}
		ApiResponse ok = operation.getResponses().remove("200");
		new java.util.TreeMap<>(statuses).forEach((status, description) -> {
			ApiResponse response = new ApiResponse().description(description);
			if (status != 204 && ok != null) {
				response.setContent(ok.getContent());
			}
			operation.getResponses().put(String.valueOf(status), response);
		});
	}

	private static void document(String key, String path, Operation operation) {
		List<Parameter> parameters = (operation.getParameters() != null) ? operation.getParameters() : List.of();
		boolean query = parameters.stream().anyMatch((parameter) -> "query".equals(parameter.getIn()));
		List<DocumentedProblem> problems = OperationProblems.of(key, path.contains("{"),
				operation.getRequestBody() != null, query);
		if (problems == null) {
			// ApiDocumentTests fails for an operation the table does not know.
			return;
		}
		ApiResponses responses = (operation.getResponses() != null) ? operation.getResponses() : new ApiResponses();
		Map<Integer, List<DocumentedProblem>> byStatus = problems.stream()
			.collect(Collectors.groupingBy(DocumentedProblem::status, LinkedHashMap::new, Collectors.toList()));
		byStatus.forEach((status, sharing) -> {
			MediaType content = new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM));
			List<String> codes = new ArrayList<>();
			for (DocumentedProblem problem : sharing) {
				codes.add(problem.code());
				content.addExamples(problem.code(),
						new Example().summary(problem.title()).value(example(problem, path)));
			}
			ApiResponse response = new ApiResponse()
				.description(sharing.stream().map((p) -> "`" + p.code() + "`").collect(Collectors.joining(", ")))
				.content(new Content().addMediaType(PROBLEM_JSON, content));
			response.addExtension(PROBLEM_CODES, codes);
			// springdoc may have added a generic answer for the status: the problem
			// replaces it.
			responses.put(String.valueOf(status), response);
		});
		operation.setResponses(responses);
	}

	private static Map<String, Object> example(DocumentedProblem problem, String path) {
		Map<String, Object> example = new LinkedHashMap<>();
		example.put("type", "urn:workgraph:problem:" + problem.code());
		example.put("title", problem.title());
		example.put("status", problem.status());
		example.put("detail", "…");
		example.put("instance", path);
		example.put("code", problem.code());
		return example;
	}

	/** Whether an operation name is in the table, for the document's test. */
	static boolean known(PathItem.HttpMethod method, String path) {
		return OperationProblems.PARTICULAR.containsKey(method.name() + " " + path);
	}

}
