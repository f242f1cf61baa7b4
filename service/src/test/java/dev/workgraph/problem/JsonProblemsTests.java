package dev.workgraph.problem;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

import org.hibernate.validator.constraints.Range;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * How a body that is not the JSON an endpoint takes is explained: a document that does
 * not parse is malformed (400), a document of the wrong shape names the field (422).
 * Driven by a mapper with the service's limits and strictness.
 */
class JsonProblemsTests {

	private static final JsonMapper MAPPER = JsonMapper
		.builder(JsonFactory.builder()
			.streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(100).build())
			.build())
		.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
				DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
		.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.build();

	record Request(String title, @Range(min = -1000, max = 1000) Integer priority, Long epoch, Integer count,
			UUID parentId, List<UUID> dependsOn, Child child) {
	}

	record Child(boolean blocking) {
	}

	@Test
	void nestingBeyondTheLimitIsToldApartFromOtherLimits() {
		assertMalformed(document("[".repeat(150)), "The request body nests JSON deeper than 100 levels");
		assertMalformed(document("{\"a\":" + "[".repeat(101) + "]".repeat(101) + "}"),
				"The request body nests JSON deeper than 100 levels");
		assertMalformed(document("{\"n\":" + "1".repeat(2000) + "}"), "The request body exceeds a JSON size limit");
		assertMalformed(document("{\"" + "k".repeat(60_000) + "\":1}"), "The request body exceeds a JSON size limit");
	}

	@Test
	void aSecondValueAfterTheFirstIsMalformed() {
		assertMalformed(document("{\"a\":1} {\"a\":2}"),
				"The request body is not valid JSON: it continues after the first JSON value");
		RequestRejected garbage = document("{\"a\":1} x");
		assertThat(garbage.code()).isEqualTo(ProblemCode.MALFORMED_REQUEST);
		assertThat(garbage.detail()).startsWith("The request body is not valid JSON: Unrecognized token 'x'");
	}

	@Test
	void syntaxErrorsAreMalformedWithTheParsersReasonAndNoSourceLocation() {
		for (String body : List.of("{\"a\":", "{a:1}", "{\"a\":01}", "tru", "{\"a\":1,\"a\":2}")) {
			RequestRejected problem = document(body);
			assertThat(problem.code()).as(body).isEqualTo(ProblemCode.MALFORMED_REQUEST);
			assertThat(problem.detail()).as(body)
				.startsWith("The request body is not valid JSON: ")
				.doesNotContain("Source")
				.doesNotContain("line:");
		}
	}

	@Test
	void anUnpairedSurrogateInAKeyIsAValidationErrorAtTheEnclosingObject() {
		assertInvalid(document("{\"\\ud800\":1}"), "body", "must not contain an unpaired surrogate");
		assertInvalid(document("{\"a\":{\"\\udc00x\":1}}"), "a", "must not contain an unpaired surrogate");
		assertInvalid(document("{\"list\":[{},{\"ok\":1,\"\\ud800\":2}]}"), "list[1]",
				"must not contain an unpaired surrogate");
	}

	@Test
	void theWrongShapeNamesTheFieldAndWhatItMustBe() {
		assertInvalid(binding("{\"nope\":1}"), "nope",
				"is not a known field; it takes child, count, dependsOn, epoch, parentId, priority, title");
		assertInvalid(binding("{\"child\":{\"blocking\":true,\"nope\":1}}"), "child.nope",
				"is not a known field; it takes blocking");
		assertInvalid(binding("{\"priority\":99999999999}"), "priority", "must be between -1000 and 1000");
		assertInvalid(binding("{\"count\":99999999999}"), "count", "must be between -2147483648 and 2147483647");
		assertInvalid(binding("{\"epoch\":99999999999999999999}"), "epoch",
				"must be between -9223372036854775808 and 9223372036854775807");
		assertInvalid(binding("{\"priority\":1.5}"), "priority", "must be an integer");
		assertInvalid(binding("{\"title\":{}}"), "title", "must be a string");
		assertInvalid(binding("{\"parentId\":\"x\"}"), "parentId", "must be a UUID");
		assertInvalid(binding("{\"dependsOn\":{}}"), "dependsOn", "must be an array");
		assertInvalid(binding("{\"dependsOn\":[\"x\"]}"), "dependsOn[0]", "must be a UUID");
		assertInvalid(binding("{\"child\":[]}"), "child", "must be a JSON object");
		assertInvalid(binding("{\"child\":{\"blocking\":null}}"), "child.blocking", "must be true or false");
		assertInvalid(binding("[]"), "body", "must be a JSON object");
	}

	/**
	 * The problem as the service builds it: with the parser in the state it failed in.
	 */
	private static RequestRejected document(String body) {
		try (JsonParser parser = MAPPER.createParser(body.getBytes(StandardCharsets.UTF_8))) {
			try {
				MAPPER.readTree(parser);
			}
			catch (JacksonException ex) {
				return JsonProblems.ofDocument(ex, parser);
			}
		}
		return fail("parsed: " + body);
	}

	private static RequestRejected binding(String body) {
		JsonNode document = MAPPER.readTree(body);
		try {
			MAPPER.readerFor(Request.class).readValue(document);
			return fail("bound: " + body);
		}
		catch (JacksonException ex) {
			return JsonProblems.ofBinding(ex);
		}
	}

	private static void assertMalformed(RequestRejected problem, String detail) {
		assertThat(problem.code()).isEqualTo(ProblemCode.MALFORMED_REQUEST);
		assertThat(problem.detail()).isEqualTo(detail);
	}

	private static void assertInvalid(RequestRejected problem, String field, String message) {
		assertThat(problem).isInstanceOf(InvalidRequest.class);
		assertThat(((InvalidRequest) problem).errors()).containsExactly(new FieldError(field, message));
	}

}
