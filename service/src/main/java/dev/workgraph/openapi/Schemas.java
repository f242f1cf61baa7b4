package dev.workgraph.openapi;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.workgraph.problem.ProblemCode;
import io.swagger.v3.oas.models.media.JsonSchema;
import io.swagger.v3.oas.models.media.Schema;

/** The schemas springdoc cannot derive from the code by itself. */
final class Schemas {

	/**
	 * Members that carry JSON as the client sent it ({@code @JsonRawValue} text on the
	 * way out, a JSON tree on the way in): {@code true} for a JSON object, {@code false}
	 * for any JSON value.
	 */
	private static final Map<String, Map<String, Boolean>> RAW_JSON = Map.of("ItemView",
			Map.of("metadata", true, "result", false), "ChildView", Map.of("result", false), "AttentionRequestView",
			Map.of("context", true), "CreateItemRequest", Map.of("metadata", true), "ChildSpec",
			Map.of("metadata", true), "CompleteRequest", Map.of("result", false), "RaiseRequest",
			Map.of("context", true));

	/**
	 * The answers' shapes: records the service writes whole, every member present (null
	 * when it has no value), so the document says every member is required.
	 */
	private static final Set<String> ANSWERS = Set.of("ItemView", "LeaseView", "AttentionRequestView", "Blockers",
			"ChildView", "DependencyView", "LeaseAndItem", "Decomposed", "ItemPage", "LeaseList",
			"AttentionRequestPage");

	private Schemas() {
	}

	/** An RFC 9457 problem as the service writes it. */
	static Schema<?> problem() {
		List<String> codes = new ArrayList<>();
		for (ProblemCode code : ProblemCode.values()) {
			codes.add(code.code());
		}
		JsonSchema fieldError = (JsonSchema) object().addProperty("field", string())
			.addProperty("message", string())
			.required(List.of("field", "message"));
		Schema<?> problem = object().description(
				"An RFC 9457 problem. Branch on `code`; further members name the ids involved (docs/http-api.md, \"Problems\").")
			.addProperty("type", string().format("uri"))
			.addProperty("title", string())
			.addProperty("status", type("integer").minimum(BigDecimal.valueOf(400)).maximum(BigDecimal.valueOf(599)))
			.addProperty("detail", string())
			.addProperty("instance", string())
			.addProperty("code", enumOf(codes))
			.addProperty("errors", type("array").items(fieldError).description("validation_failed: one per bad field"))
			.required(List.of("type", "title", "status", "code"));
		problem.setAdditionalProperties(Boolean.TRUE);
		return problem;
	}

	/**
	 * Adds the lease's {@code fenceToken}, which the service writes beside the record's
	 * members (springdoc sees only those).
	 */
	static void addFenceToken(Map<String, Schema> schemas) {
		Schema<?> lease = schemas.get("LeaseView");
		if (lease != null) {
			lease.addProperty("fenceToken", string().description(
					"A compact JWS (EdDSA, Ed25519) over {iss, sub: itemId, lid: leaseId, epoch, wid: workerId, iat, exp: expiresAt}, "
							+ "verifiable offline with the keys at /.well-known/jwks.json (docs/fencing-outside.md)"));
		}
	}

	/**
	 * Gives raw JSON members their real type, drops the generated {@code JsonNode}
	 * schemas, and lets every member that is not required be null (the service writes
	 * absent values as null).
	 */
	static void completeRawJson(Map<String, Schema> schemas) {
		RAW_JSON.forEach((schemaName, members) -> {
			Schema<?> schema = schemas.get(schemaName);
			if (schema != null && schema.getProperties() != null) {
				members.forEach((member, objectOnly) -> {
					if (schema.getProperties().containsKey(member)) {
						schema.getProperties().put(member, objectOnly ? object() : new JsonSchema());
					}
				});
			}
		});
		schemas.keySet().removeIf((name) -> name.equals("JsonNode") || name.endsWith("Node"));
		schemas.forEach((name, schema) -> {
			if (schema.getProperties() == null) {
				return;
			}
			if (ANSWERS.contains(name)) {
				schema.setRequired(new ArrayList<>(schema.getProperties().keySet()));
				// Nullable all the same: a member without a value is written as null.
				Map<String, Schema> properties = schema.getProperties();
				properties.replaceAll((member, property) -> nullable(property));
				return;
			}
			List<String> required = (schema.getRequired() != null) ? schema.getRequired() : List.of();
			Map<String, Schema> properties = schema.getProperties();
			properties.replaceAll((member, property) -> required.contains(member) ? property : nullable(property));
		});
	}

	private static Schema<?> nullable(Schema<?> property) {
		if (property.get$ref() != null) {
			JsonSchema either = new JsonSchema();
			either.setAnyOf(List.of(new JsonSchema().$ref(property.get$ref()), type("null")));
			// A reference cannot carry siblings in every reader; the wrapper keeps what
			// the member's own annotation says.
			either.setDescription(property.getDescription());
			return either;
		}
		if (property.getTypes() != null && !property.getTypes().isEmpty()) {
			Set<String> types = new LinkedHashSet<>(property.getTypes());
			types.add("null");
			property.setTypes(types);
			if (property.getEnum() != null && !property.getEnum().contains(null)) {
				List<Object> values = new ArrayList<>(property.getEnum());
				values.add(null);
				((Schema<Object>) property).setEnum(values);
			}
		}
		return property;
	}

	private static JsonSchema object() {
		return type("object");
	}

	private static JsonSchema string() {
		return type("string");
	}

	private static JsonSchema type(String type) {
		JsonSchema schema = new JsonSchema();
		schema.setTypes(new LinkedHashSet<>(List.of(type)));
		return schema;
	}

	private static JsonSchema enumOf(List<String> values) {
		JsonSchema schema = string();
		schema.setEnum(new ArrayList<>(values));
		return schema;
	}

}
