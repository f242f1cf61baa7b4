package dev.workgraph.openapi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import dev.workgraph.problem.ProblemCode;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
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
import io.swagger.v3.oas.models.tags.Tag;
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

	/** Operations anyone may call, without a token. */
	private static final java.util.Set<String> OPEN = java.util.Set.of("GET /.well-known/jwks.json");

	/** The id in the paths of the problem examples. */
	static final String EXAMPLE_ID = "0199a3d2-8c1e-7b2a-9d4f-2e6b1c0a5f31";

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
				.license(new License().name("Apache-2.0").identifier("Apache-2.0")))
			.components(new Components().addSecuritySchemes(BEARER,
					new SecurityScheme().type(SecurityScheme.Type.HTTP)
						.scheme("bearer")
						.description("A Work Graph token (worker, operator or admin)")))
			.addSecurityItem(new SecurityRequirement().addList(BEARER));
	}

	@Bean
	OpenApiCustomizer workGraphOperations() {
		// Read at start-up: a catalogue file that does not fit its shape stops the start.
		OperationCatalogue catalogue = OperationCatalogue.load();
		ProblemExamples problems = ProblemExamples.load();
		return (openApi) -> {
			openApi.getComponents().addSchemas(PROBLEM, Schemas.problem());
			Schemas.addFenceToken(openApi.getComponents().getSchemas());
			Schemas.completeRawJson(openApi.getComponents().getSchemas());
			openApi.setTags(catalogue.groups()
				.stream()
				.map((group) -> new Tag().name(group.tag()).description(group.description()))
				.toList());
			openApi.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, operation) -> {
				String key = method.name() + " " + path;
				OperationCatalogue.Entry entry = catalogue.operations().get(key);
				if (entry == null) {
					// ApiDocumentTests fails for an operation the catalogue does not
					// know.
					return;
				}
				if (OPEN.contains(key)) {
					operation.setSecurity(List.of());
				}
				describe(catalogue, key, entry, operation);
				successes(entry, operation);
				problems(path, entry, operation, problems);
			}));
		};
	}

	private static void describe(OperationCatalogue catalogue, String key, OperationCatalogue.Entry entry,
			Operation operation) {
		operation.setOperationId(entry.operationId());
		operation.setSummary(entry.summary());
		operation.setDescription(entry.description().strip());
		operation.setTags(List.of(catalogue.groupOf(key).tag()));
		if (operation.getParameters() != null) {
			for (Parameter parameter : operation.getParameters()) {
				String description = catalogue.parameter(key, parameter.getName());
				if (description != null) {
					parameter.setDescription(description.strip());
				}
			}
		}
		if (entry.request() != null && operation.getRequestBody() != null
				&& operation.getRequestBody().getContent() != null) {
			for (MediaType media : operation.getRequestBody().getContent().values()) {
				media.setExamples(new LinkedHashMap<>(Map.of("example", new Example().value(entry.request()))));
			}
		}
	}

	private static void successes(OperationCatalogue.Entry entry, Operation operation) {
		Map<Integer, String> statuses = entry.responses();
		if (statuses == null || operation.getResponses() == null) {
			return;
		}
		ApiResponse ok = operation.getResponses().remove("200");
		new TreeMap<>(statuses).forEach((status, description) -> {
			ApiResponse response = new ApiResponse().description(description.strip());
			if (status != 204 && ok != null) {
				response.setContent(ok.getContent());
			}
			operation.getResponses().put(String.valueOf(status), response);
		});
	}

	private static void problems(String path, OperationCatalogue.Entry entry, Operation operation,
			ProblemExamples examples) {
		List<Parameter> parameters = (operation.getParameters() != null) ? operation.getParameters() : List.of();
		boolean query = parameters.stream().anyMatch((parameter) -> "query".equals(parameter.getIn()));
		List<ProblemCode> problems = OperationProblems.of(entry.problemCodes(), path.contains("{"),
				operation.getRequestBody() != null, query);
		ApiResponses responses = (operation.getResponses() != null) ? operation.getResponses() : new ApiResponses();
		Map<Integer, List<ProblemCode>> byStatus = problems.stream()
			.collect(Collectors.groupingBy((code) -> code.status().value(), LinkedHashMap::new, Collectors.toList()));
		String instance = path.replaceAll("\\{[^}]+}", EXAMPLE_ID);
		byStatus.forEach((status, sharing) -> {
			MediaType content = new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM));
			List<String> codes = new ArrayList<>();
			for (ProblemCode problem : sharing) {
				codes.add(problem.code());
				content.addExamples(problem.code(),
						new Example().summary(problem.title()).value(examples.of(problem, instance)));
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

}
