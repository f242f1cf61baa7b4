package dev.workgraph.openapi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.workgraph.problem.ProblemCode;

import static dev.workgraph.problem.ProblemCode.FORBIDDEN;
import static dev.workgraph.problem.ProblemCode.INTERNAL_ERROR;
import static dev.workgraph.problem.ProblemCode.MALFORMED_REQUEST;
import static dev.workgraph.problem.ProblemCode.NOT_ACCEPTABLE;
import static dev.workgraph.problem.ProblemCode.NOT_FOUND;
import static dev.workgraph.problem.ProblemCode.PAYLOAD_TOO_LARGE;
import static dev.workgraph.problem.ProblemCode.SERVICE_UNAVAILABLE;
import static dev.workgraph.problem.ProblemCode.UNAUTHENTICATED;
import static dev.workgraph.problem.ProblemCode.UNSUPPORTED_MEDIA_TYPE;
import static dev.workgraph.problem.ProblemCode.VALIDATION_FAILED;

/**
 * Which problem codes an operation can answer (docs/http-api.md, "Problems"). Only what
 * is particular to an operation is listed by hand, in its catalogue entry
 * ({@code problems:}); the rest follows from its shape:
 * <ul>
 * <li>every operation: {@code unauthenticated} 401 and {@code forbidden} 403 (when access
 * control is on), {@code not_acceptable} 406, {@code internal_error} 500,
 * {@code service_unavailable} 503;</li>
 * <li>with a path id: {@code not_found} 404 (a malformed id names nothing);</li>
 * <li>with a request body: {@code malformed_request} 400, {@code payload_too_large} 413,
 * {@code unsupported_media_type} 415, {@code validation_failed} 422;</li>
 * <li>with query parameters: {@code validation_failed} 422.</li>
 * </ul>
 */
final class OperationProblems {

	private OperationProblems() {
	}

	/** Every problem the operation can answer, in status order. */
	static List<ProblemCode> of(List<ProblemCode> particular, boolean pathIds, boolean body, boolean query) {
		List<ProblemCode> codes = new ArrayList<>(particular);
		// Access control (workgraph.security.enabled): no or a bad token, or a role
		// that may not do this.
		codes.add(UNAUTHENTICATED);
		codes.add(FORBIDDEN);
		codes.add(NOT_ACCEPTABLE);
		codes.add(INTERNAL_ERROR);
		codes.add(SERVICE_UNAVAILABLE);
		if (pathIds) {
			codes.add(NOT_FOUND);
		}
		if (body) {
			codes.addAll(List.of(MALFORMED_REQUEST, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, VALIDATION_FAILED));
		}
		if (query) {
			codes.add(VALIDATION_FAILED);
		}
		return codes.stream()
			.distinct()
			.sorted(Comparator.comparingInt((ProblemCode code) -> code.status().value())
				.thenComparing(ProblemCode::code))
			.toList();
	}

}
