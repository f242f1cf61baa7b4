package dev.workgraph.view;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jsonb}'s text form made compact: whitespace between tokens goes, whitespace and
 * escapes inside strings stay.
 */
class JsonbTextTests {

	@Test
	void whitespaceBetweenTokensIsDropped() {
		assertThat(JsonbText.compact("{\"branch\": \"release/1.4\", \"n\": [1, 2, {\"a\": null}]}"))
			.isEqualTo("{\"branch\":\"release/1.4\",\"n\":[1,2,{\"a\":null}]}");
		assertThat(JsonbText.compact(" \n\t[ true ,\r false ] ")).isEqualTo("[true,false]");
	}

	@Test
	void stringsAreKeptAsTheyAre() {
		assertThat(JsonbText.compact("{\"a b\": \"c: d, e\"}")).isEqualTo("{\"a b\":\"c: d, e\"}");
		assertThat(JsonbText.compact("{\"q\": \"say \\\"x, y\\\" \\\\\", \"k\": 1}"))
			.isEqualTo("{\"q\":\"say \\\"x, y\\\" \\\\\",\"k\":1}");
		assertThat(JsonbText.compact("[\"\\\\\", \" \"]")).isEqualTo("[\"\\\\\",\" \"]");
	}

	@Test
	void compactTextIsReturnedAsItIs() {
		String compact = "{\"a\":[1,\"b c\"]}";
		assertThat(JsonbText.compact(compact)).isSameAs(compact);
		assertThat(JsonbText.compact("{}")).isEqualTo("{}");
	}

}
