package dev.workgraph.client.problem;

import java.time.Duration;
import java.util.List;

import tools.jackson.databind.JsonNode;

/**
 * {@code validation_failed} (422): a field is missing, unknown, of the wrong type, out of
 * range or too long. {@link #errors()} names each offending field; fix them.
 */
public class ValidationFailed extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public ValidationFailed(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

	/** What is wrong, field by field, as the service listed it. */
	public List<FieldError> errors() {
		return problem().list("errors",
				(error) -> new FieldError(error.path("field").asString(""), error.path("message").asString("")));
	}

	/**
	 * Whether the service named this field (a JSON path such as
	 * {@code children[3].title}).
	 */
	public boolean concerns(String field) {
		return errors().stream().anyMatch((error) -> error.field().equals(field));
	}

	/**
	 * One reason the request failed validation.
	 *
	 * @param field the JSON path of the offending value
	 * @param message what is wrong with it
	 */
	public record FieldError(String field, String message) {
	}

}
