package dev.workgraph.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every "out of range" answer states the range, whatever caught the value: the validation
 * of a field, the configured lease bounds, a number too large for its type, a page size.
 */
class RangeMessagesTests extends ServiceTest {

	@Test
	void everyRangeMessageNamesItsBounds() {
		JsonNode claim = leaseOnSomething();
		String lease = "/leases/" + leaseId(claim);
		long epoch = epoch(claim);
		List<Case> cases = new ArrayList<>();
		cases.add(new Case(this.api.post("/items", Map.of("title", "t", "priority", 1001)), "priority",
				"must be between -1000 and 1000"));
		cases.add(new Case(this.api.post("/items", Map.of("title", "t", "priority", -1001)), "priority",
				"must be between -1000 and 1000"));
		cases.add(new Case(this.api.post("/items", "{\"title\":\"t\",\"priority\":2147483648}"), "priority",
				"must be between -1000 and 1000"));
		cases.add(new Case(
				this.api.post(lease + "/decompose",
						Map.of("epoch", epoch, "children",
								List.of(Map.of("key", "a", "title", "t", "priority", 5000)))),
				"children[0].priority", "must be between -1000 and 1000"));
		cases.add(new Case(
				this.api.post(lease + "/decompose",
						"{\"epoch\":" + epoch
								+ ",\"children\":[{\"key\":\"a\",\"title\":\"t\",\"priority\":99999999999}]}"),
				"children[0].priority", "must be between -1000 and 1000"));
		cases.add(new Case(this.api.post("/claims", Map.of("workerId", "w", "leaseSeconds", 0)), "leaseSeconds",
				"must be between 1 and 86400"));
		cases.add(new Case(this.api.post("/claims", "{\"workerId\":\"w\",\"leaseSeconds\":2147483648}"), "leaseSeconds",
				"must be between 1 and 86400"));
		cases.add(new Case(this.api.post(lease + "/renew", Map.of("epoch", epoch, "leaseSeconds", 1L << 40)),
				"leaseSeconds", "must be between 1 and 86400"));
		cases.add(new Case(this.api.post(lease + "/renew", "{\"epoch\":99999999999999999999}"), "epoch",
				"must be between -9223372036854775808 and 9223372036854775807"));
		cases.add(new Case(this.api.get("/items?limit=501"), "limit", "must be between 1 and 500"));
		cases.add(new Case(this.api.get("/attention-requests?limit=0"), "limit", "must be between 1 and 500"));
		cases.add(new Case(this.api.post("/claims", Map.of("workerId", "w", "queues", List.of())), "queues",
				"must list between 1 and 100 queues"));
		cases.add(new Case(this.api.post(lease + "/decompose", Map.of("epoch", epoch, "children", List.of())),
				"children", "must list between 1 and 1000 children"));
		cases.add(new Case(this.api.post("/items", Map.of("title", "")), "title",
				"must be between 1 and 500 characters long"));
		for (Case each : cases) {
			assertThat(each.response().status()).as(each.response().toString()).isEqualTo(422);
			JsonNode errors = each.response().body().path("errors");
			assertThat(errors.size()).as(each.response().toString()).isEqualTo(1);
			assertThat(errors.get(0).path("field").asString()).isEqualTo(each.field());
			assertThat(errors.get(0).path("message").asString()).as(each.response().toString())
				.isEqualTo(each.message());
			assertThat(each.response().body().path("detail").asString()).contains(each.message());
		}
	}

	private JsonNode leaseOnSomething() {
		UUID item = createItem("held");
		JsonNode claim = claim("range-worker");
		assertThat(itemId(claim)).isEqualTo(item);
		return claim;
	}

	private record Case(Api.Response response, String field, String message) {
	}

}
