package dev.workgraph.web;

import java.util.Comparator;
import java.util.List;
import java.util.Set;

import dev.workgraph.problem.FieldError;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.problem.JsonProblems;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.stereotype.Component;

/**
 * Binds and validates a body the controller first read as a JSON tree (for endpoints that
 * also need the body itself, such as Idempotency-Key comparison). Errors surface exactly
 * as they would from {@code @Valid @RequestBody}.
 */
@Component
public class RequestBodies {

	private final JsonMapper mapper;

	private final Validator validator;

	RequestBodies(JsonMapper mapper, Validator validator) {
		this.mapper = mapper;
		this.validator = validator;
	}

	public <T> T bind(JsonNode body, Class<T> type) {
		T request;
		try {
			request = this.mapper.treeToValue(body, type);
		}
		catch (JacksonException ex) {
			throw JsonProblems.ofBinding(ex);
		}
		Set<ConstraintViolation<T>> violations = this.validator.validate(request);
		if (!violations.isEmpty()) {
			List<FieldError> errors = violations.stream()
				.map((violation) -> new FieldError(fieldName(violation), violation.getMessage()))
				.sorted(Comparator.comparing(FieldError::field))
				.toList();
			throw new InvalidRequest(errors);
		}
		return request;
	}

	/**
	 * The property path as the client wrote it: {@code dependsOn[0]}, without the
	 * validator's container-element nodes ({@code dependsOn[0].<list element>}).
	 */
	private static String fieldName(ConstraintViolation<?> violation) {
		return violation.getPropertyPath().toString().replaceAll("\\.<[^>]*>", "");
	}

}
