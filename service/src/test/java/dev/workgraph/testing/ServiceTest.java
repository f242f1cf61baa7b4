package dev.workgraph.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import dev.workgraph.audit.ConsistencyAudit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Base for tests against the running service: a clean database before each test, an HTTP
 * client, a few fixtures that go through the API, and the consistency audit after each
 * test.
 */
@IntegrationTest
public abstract class ServiceTest {

	@LocalServerPort
	protected int port;

	/**
	 * The tests' own SQL (fixtures, checks) on the service's pool, without the service's
	 * query timeout: that bounds the service's statements, and a bulk fixture of a
	 * hundred thousand items can outlast it on a busy machine.
	 */
	protected JdbcClient jdbc;

	@Autowired
	protected ConsistencyAudit audit;

	protected Api api;

	@Autowired
	void useDatabase(DataSource dataSource) {
		this.jdbc = JdbcClient.create(dataSource);
	}

	@BeforeEach
	void cleanDatabase() {
		Database.clean(this.jdbc);
		this.api = new Api(this.port);
	}

	@AfterEach
	void graphIsConsistent() {
		assertThat(this.audit.run().inconsistencies()).as("consistency audit").isEmpty();
	}

	protected JsonNode createItem(Map<String, Object> fields) {
		Api.Response created = this.api.post("/items", fields);
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		return created.body();
	}

	protected UUID createItem(String title) {
		return UUID.fromString(createItem(Map.of("title", title)).path("id").asString());
	}

	protected UUID createItem(String title, Object... keyValues) {
		Map<String, Object> fields = new LinkedHashMap<>();
		fields.put("title", title);
		for (int i = 0; i < keyValues.length; i += 2) {
			fields.put((String) keyValues[i], keyValues[i + 1]);
		}
		return UUID.fromString(createItem(fields).path("id").asString());
	}

	/**
	 * Claims and returns {@code {lease, item}}; fails the test when nothing is claimed.
	 */
	protected JsonNode claim(String workerId) {
		return claim(Map.of("workerId", workerId));
	}

	protected JsonNode claim(Map<String, Object> request) {
		Api.Response claimed = this.api.post("/claims", request);
		assertThat(claimed.status()).as(claimed.toString()).isEqualTo(201);
		return claimed.body();
	}

	protected JsonNode item(UUID id) {
		Api.Response item = this.api.get("/items/" + id);
		assertThat(item.status()).as(item.toString()).isEqualTo(200);
		return item.body();
	}

	protected String status(UUID id) {
		return item(id).path("status").asString();
	}

	protected static UUID leaseId(JsonNode claim) {
		return UUID.fromString(claim.path("lease").path("id").asString());
	}

	protected static long epoch(JsonNode claim) {
		return claim.path("lease").path("epoch").asLong();
	}

	protected static UUID itemId(JsonNode claim) {
		return UUID.fromString(claim.path("item").path("id").asString());
	}

	protected Api.Response complete(JsonNode claim) {
		return this.api.post("/leases/" + leaseId(claim) + "/complete", Map.of("epoch", epoch(claim)));
	}

	/**
	 * Moves an active lease's expiry into the past, as if its holder had stalled that
	 * long.
	 */
	protected void expireLease(UUID leaseId) {
		this.jdbc.sql(
				"update leases set expires_at = now() - interval '1 second', acquired_at = now() - interval '1 minute' where id = :id")
			.param("id", leaseId)
			.update();
	}

	/** Claims with this request until nothing is left (204); every claim must succeed. */
	protected List<JsonNode> claimUntilEmpty(Map<String, Object> request) {
		return claimUntilEmpty(this.api, request);
	}

	/**
	 * Claims through this instance until nothing is left (204); every claim must succeed.
	 * Returns the claims in the order they were made.
	 */
	protected static List<JsonNode> claimUntilEmpty(Api api, Map<String, Object> request) {
		List<JsonNode> claimed = new ArrayList<>();
		while (true) {
			Api.Response response = api.post("/claims", request);
			if (response.status() == 204) {
				return claimed;
			}
			assertThat(response.status()).as(response.toString()).isEqualTo(201);
			claimed.add(response.body());
		}
	}

	/** The single number a query such as {@code select count(*) ...} answers. */
	protected long count(String sql) {
		return this.jdbc.sql(sql).query(Long.class).single();
	}

	protected static List<String> codes(Api.Response... responses) {
		return java.util.Arrays.stream(responses).map(Api.Response::code).toList();
	}

}
