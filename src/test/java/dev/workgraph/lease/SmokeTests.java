package dev.workgraph.lease;

import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

class SmokeTests extends ServiceTest {

	@Test
	void itemGoesThroughItsLifecycle() {
		UUID id = createItem("write the docs");
		assertThat(status(id)).isEqualTo("ready");
		JsonNode claim = claim("worker-1");
		assertThat(itemId(claim)).isEqualTo(id);
		assertThat(epoch(claim)).isEqualTo(1);
		Api.Response renewed = this.api.post("/leases/" + leaseId(claim) + "/renew",
				Map.of("epoch", 1, "leaseSeconds", 60));
		assertThat(renewed.status()).as(renewed.toString()).isEqualTo(200);
		Api.Response completed = this.api.post("/leases/" + leaseId(claim) + "/complete",
				Map.of("epoch", 1, "result", Map.of("pages", 3)));
		assertThat(completed.status()).as(completed.toString()).isEqualTo(200);
		assertThat(completed.body().path("item").path("status").asString()).isEqualTo("completed");
		assertThat(completed.body().path("lease").path("outcome").asString()).isEqualTo("completed");
		Api.Response stale = this.api.post("/leases/" + leaseId(claim) + "/complete", Map.of("epoch", 1));
		assertThat(stale.status()).isEqualTo(409);
		assertThat(stale.code()).isEqualTo("lease_ended");
		assertThat(this.api.post("/claims", Map.of("workerId", "worker-1")).status()).isEqualTo(204);
	}

}
