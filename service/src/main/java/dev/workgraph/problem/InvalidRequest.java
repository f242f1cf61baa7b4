package dev.workgraph.problem;

import java.util.List;

/**
 * Validation found bad fields after binding, e.g. duplicate decompose keys. Answers 422.
 */
public class InvalidRequest extends RequestRejected {

	private final List<FieldError> errors;

	public InvalidRequest(List<FieldError> errors) {
		super(ProblemCode.VALIDATION_FAILED, describe(errors));
		this.errors = List.copyOf(errors);
	}

	public InvalidRequest(String field, String message) {
		this(List.of(new FieldError(field, message)));
	}

	public List<FieldError> errors() {
		return this.errors;
	}

	public static String describe(List<FieldError> errors) {
		StringBuilder detail = new StringBuilder("Invalid request: ");
		for (int i = 0; i < errors.size(); i++) {
			FieldError error = errors.get(i);
			detail.append(i == 0 ? "" : "; ").append(error.field()).append(' ').append(error.message());
		}
		return detail.toString();
	}

}
