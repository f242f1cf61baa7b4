package dev.workgraph.web;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JSON answers leave with their Content-Length, not chunked: a chunked answer takes a
 * second write for its ending (see StrictJsonHttpMessageConverter).
 */
class AnswersInOnePieceTests extends ServiceTest {

	@Test
	void aClaimsAnswerHasItsLength() {
		createItem("sized");

		assertSizedAndNotChunked(this.api.post("/claims", Map.of("workerId", "sizer")), 201);
	}

	@Test
	void aProblemHasItsLength() {
		assertSizedAndNotChunked(this.api.get("/items/" + UUID.randomUUID()), 404);
	}

	@Test
	void anAnswerLargerThanTheResponseBufferHasItsLengthToo() {
		String title = "x".repeat(450);
		for (int i = 0; i < 40; i++) {
			createItem(title);
		}

		Api.Response page = this.api.get("/items?limit=40");
		assertSizedAndNotChunked(page, 200);
		assertThat(page.raw().body().length()).isGreaterThan(16 * 1024);
	}

	private static void assertSizedAndNotChunked(Api.Response response, int status) {
		assertThat(response.status()).isEqualTo(status);
		assertThat(response.header("Transfer-Encoding")).isNull();
		assertThat(response.header("Content-Length"))
			.isEqualTo(String.valueOf(response.raw().body().getBytes(StandardCharsets.UTF_8).length));
	}

}
