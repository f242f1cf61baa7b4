package dev.workgraph.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks a problem body as a client's parser sees it: exactly one of each key (a parser
 * keeps only one of two equal keys, so a second {@code status} hides the HTTP status),
 * and RFC 9457's members with the types the RFC gives them, so no extension member has
 * taken one of their names.
 */
public final class ProblemBodies {

	/** Parses as strictly as a careful client: a repeated key is an error. */
	private static final JsonMapper STRICT = JsonMapper.builder()
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.build();

	private ProblemBodies() {
	}

	/**
	 * Asserts that the raw body is one JSON object without a repeated key at any depth,
	 * whose RFC 9457 members are what the RFC says, with {@code status} equal to the HTTP
	 * status.
	 */
	public static JsonNode assertWellFormed(String rawBody, int httpStatus, String description) {
		JsonNode problem;
		try {
			problem = STRICT.readTree(rawBody);
		}
		catch (RuntimeException ex) {
			throw new AssertionError(description + ": the problem repeats a key: " + ex.getMessage() + "\n" + rawBody,
					ex);
		}
		assertThat(problem.isObject()).as(description).isTrue();
		assertThat(problem.path("status").isInt()).as(description + ": status is the HTTP status").isTrue();
		assertThat(problem.path("status").asInt()).as(description).isEqualTo(httpStatus);
		for (String member : List.of("type", "title", "detail", "code")) {
			assertThat(problem.path(member).isString()).as(description + ": " + member + " is a string").isTrue();
		}
		if (problem.has("instance")) {
			assertThat(problem.path("instance").isString()).as(description + ": instance is a string").isTrue();
		}
		if (problem.has("errors")) {
			assertThat(problem.path("errors").isArray()).as(description + ": errors is a list").isTrue();
		}
		return problem;
	}

	/** The members a problem carries beyond RFC 9457's and the API's own. */
	public static List<String> extensionMembers(JsonNode problem) {
		List<String> names = new ArrayList<>();
		for (Map.Entry<String, JsonNode> member : problem.properties()) {
			if (!List.of("type", "title", "status", "detail", "instance", "code", "errors").contains(member.getKey())) {
				names.add(member.getKey());
			}
		}
		return names;
	}

}
