package dev.workgraph.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Database;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A query parameter an endpoint does not take is refused with 422 naming it, on every
 * endpoint, before anything else is looked at or written; the parameters it takes keep
 * working, and {@code status} on the item list takes several values.
 */
class QueryParameterTests extends ServiceTest {

	private static final String UNKNOWN_ID = "01890000-0000-7000-8000-00000000dead";

	@Autowired
	@Qualifier("requestMappingHandlerMapping")
	private RequestMappingHandlerMapping mappings;

	@Test
	void everyEndpointRefusesAParameterItDoesNotTake() {
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		Set<String> tried = new TreeSet<>();
		for (Map.Entry<RequestMappingInfo, HandlerMethod> mapping : this.mappings.getHandlerMethods().entrySet()) {
			if (!mapping.getValue().getBeanType().getName().startsWith("dev.workgraph.")
					|| mapping.getKey().getPathPatternsCondition() == null) {
				continue;
			}
			Set<RequestMethod> methods = mapping.getKey().getMethodsCondition().getMethods();
			for (String pattern : mapping.getKey().getPathPatternsCondition().getPatternValues()) {
				for (RequestMethod method : methods.isEmpty() ? Set.of(RequestMethod.GET) : methods) {
					String path = pattern.replaceAll("\\{[^}]+}", UNKNOWN_ID) + "?bogus=1";
					byte[] body = (method == RequestMethod.POST) ? "{}".getBytes() : null;
					Api.Response response = this.api.raw(method.name(), path, body,
							(body != null) ? Map.of("Content-Type", "application/json") : Map.of());
					assertThat(response.status()).as(method + " " + path + ": " + response).isEqualTo(422);
					assertThat(response.code()).isEqualTo("validation_failed");
					assertThat(response.body().path("errors").get(0).path("field").asString()).isEqualTo("bogus");
					tried.add(method + " " + pattern);
				}
			}
		}
		assertThat(tried).as("the API's endpoints")
			.contains("GET /items", "POST /items", "GET /items/{id}", "GET /items/{id}/leases", "POST /claims",
					"POST /leases/{leaseId}/complete", "GET /attention-requests",
					"POST /attention-requests/{id}/resolve");
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
	}

	@Test
	void theIssuesExamplesAreRefusedNamingTheParameter() {
		createItem("one");
		Api.Response worker = this.api.get("/items?workerId=x");
		assertThat(worker.status()).isEqualTo(422);
		JsonNode error = worker.body().path("errors").get(0);
		assertThat(error.path("field").asString()).isEqualTo("workerId");
		assertThat(error.path("message").asString()).contains("status, queue, parentId, q, limit, cursor");
		Api.Response sort = this.api.get("/items?status=ready&sort=priority&order=desc");
		assertThat(sort.status()).isEqualTo(422);
		assertThat(sort.body().path("errors").findValuesAsString("field")).containsExactly("sort");
		Api.Response order = this.api.get("/items?status=ready&order=desc");
		assertThat(order.status()).as("order takes newest or oldest").isEqualTo(422);
		assertThat(order.body().path("errors").findValuesAsString("field")).containsExactly("order");
		assertThat(this.api.get("/items/" + UNKNOWN_ID + "?expand=children").status())
			.as("refused before the item is looked up")
			.isEqualTo(422);
	}

	@Test
	void aRefusedParameterWritesNothing() {
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		assertThat(this.api.post("/items?queue=later", Map.of("title", "t")).status()).isEqualTo(422);
		assertThat(this.api.post("/claims?wait=5", Map.of("workerId", "w")).status()).isEqualTo(422);
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
	}

	@Test
	void theParametersAnEndpointTakesStillWork() {
		UUID ready = createItem("ready");
		assertThat(this.api.get("/items?status=ready&queue=default&limit=5").status()).isEqualTo(200);
		assertThat(this.api.get("/items?%6Cimit=5").status()).as("a percent-encoded name is decoded").isEqualTo(200);
		assertThat(this.api.get("/items?").status()).isEqualTo(200);
		assertThat(this.api.get("/items/" + ready + "?").status()).isEqualTo(200);
		assertThat(this.api.get("/attention-requests?status=open&limit=1").status()).isEqualTo(200);
	}

	@Test
	void statusTakesSeveralValuesCommaSeparatedOrRepeated() {
		UUID dependency = createItem("dependency");
		UUID blocked = createItem("blocked", "dependsOn", List.of(dependency.toString()));
		UUID cancelled = createItem("cancelled");
		assertThat(this.api.post("/items/" + cancelled + "/cancel", Map.of()).status()).isEqualTo(200);
		assertThat(listed("status=ready")).containsExactly(dependency);
		assertThat(listed("status=ready,blocked")).containsExactly(dependency, blocked);
		assertThat(listed("status=blocked&status=ready")).containsExactly(dependency, blocked);
		assertThat(listed("status=cancelled,ready&status=BLOCKED")).containsExactly(dependency, blocked, cancelled);
		assertThat(listed("status=ready,ready")).containsExactly(dependency);
		for (String bad : List.of("status=", "status=ready,", "status=ready,done", "status=ready&status=")) {
			Api.Response response = this.api.get("/items?" + bad);
			assertThat(response.status()).as(bad + ": " + response).isEqualTo(422);
			assertThat(response.body().path("errors").get(0).path("field").asString()).isEqualTo("status");
		}
	}

	private List<UUID> listed(String query) {
		Api.Response response = this.api.get("/items?" + query);
		assertThat(response.status()).as(query + ": " + response).isEqualTo(200);
		List<UUID> ids = new ArrayList<>();
		response.body().path("items").forEach((item) -> ids.add(UUID.fromString(item.path("id").asString())));
		return ids;
	}

}
