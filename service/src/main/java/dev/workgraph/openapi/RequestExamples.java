package dev.workgraph.openapi;

import java.util.Map;

import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.examples.Example;
import io.swagger.v3.oas.models.media.MediaType;
import tools.jackson.databind.json.JsonMapper;

/** An example body for each operation that takes one (docs/http-api.md has more). */
final class RequestExamples {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final Map<String, String> EXAMPLES = Map.ofEntries(Map.entry("POST /items", """
			{"title": "Build artifacts", "priority": 10, "queue": "releases", "parentId": null,
			 "dependsOn": [], "metadata": {"branch": "release/1.4"}}"""), Map.entry("POST /items/{id}/dependencies", """
			{"dependsOn": "0199a3d2-8c1e-7b2a-9d4f-2e6b1c0a5f31"}"""), Map.entry("POST /items/{id}/cancel", """
			{"reason": "covered by the changelog"}"""), Map.entry("POST /claims", """
			{"workerId": "agent-7", "queues": ["writing"], "leaseSeconds": 60}"""),
			Map.entry("POST /leases/{leaseId}/renew", """
					{"epoch": 1, "leaseSeconds": 60}"""), Map.entry("POST /leases/{leaseId}/complete", """
					{"epoch": 1, "result": {"summary": "done"}}"""), Map.entry("POST /leases/{leaseId}/release", """
					{"epoch": 1, "reason": "shutting down"}"""), Map.entry("POST /leases/{leaseId}/cancel", """
					{"epoch": 1, "reason": "no longer needed"}"""), Map.entry("POST /leases/{leaseId}/decompose", """
					{"epoch": 1, "reason": "two steps", "children": [
					  {"key": "a", "title": "Draft"},
					  {"key": "b", "title": "Review", "dependsOn": ["a"]}]}"""),
			Map.entry("POST /leases/{leaseId}/attention-requests", """
					{"epoch": 1, "question": "May I delete the old bucket?", "blocking": true,
					 "context": {"bucket": "logs-2023"}}"""), Map.entry("POST /attention-requests/{id}/resolve", """
					{"resolution": "Yes, it holds nothing we need.", "resolvedBy": "alice"}"""));

	private RequestExamples() {
	}

	static void add(String operation, Operation documented) {
		String example = EXAMPLES.get(operation);
		if (example == null || documented.getRequestBody() == null
				|| documented.getRequestBody().getContent() == null) {
			return;
		}
		for (MediaType media : documented.getRequestBody().getContent().values()) {
			media.addExamples("example", new Example().value(JSON.readValue(example, Map.class)));
		}
	}

}
