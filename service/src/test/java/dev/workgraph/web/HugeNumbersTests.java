package dev.workgraph.web;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JSON number too large for a double is read as infinity, and would have been kept as
 * the text "Infinity": refused instead, wherever it is in a body, naming where.
 */
class HugeNumbersTests extends ServiceTest {

	@Test
	void aNumberTooLargeForADoubleInMetadataIsRefusedNamingIt() {
		Api.Response refused = this.api.post("/items", "{\"title\":\"huge\",\"metadata\":{\"size\":1e999999}}");
		assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
		assertThat(refused.code()).isEqualTo("validation_failed");
		assertThat(refused.body().path("errors").get(0).path("field").asString()).isEqualTo("metadata.size");
		assertThat(refused.body().path("errors").get(0).path("message").asString()).contains("too large");
		Integer items = this.jdbc.sql("select count(*) from work_items").query(Integer.class).single();
		assertThat(items).as("nothing written").isZero();
	}

	@Test
	void anywhereInTheBodyNegativeOrNested() {
		Api.Response refused = this.api.post("/items",
				"{\"title\":\"huge\",\"metadata\":{\"list\":[1, {\"deep\":-2e400}]}}");
		assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
		assertThat(refused.body().path("errors").get(0).path("field").asString()).isEqualTo("metadata.list[1].deep");
	}

	@Test
	void theLargestDoublesAreKept() {
		Api.Response created = this.api.post("/items", "{\"title\":\"large\",\"metadata\":{\"size\":1e308}}");
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		assertThat(created.body().path("metadata").path("size").asDouble()).isEqualTo(1e308);
	}

}
