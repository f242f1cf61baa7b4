package dev.workgraph.problem;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.ConcurrencyFailureException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * Builds RFC 9457 problem responses: stable type and title per code, a human detail, the
 * ids involved.
 */
public final class Problems {

	private static final Logger log = LoggerFactory.getLogger(Problems.class);

	/** PostgreSQL cannot be reached, or a connection to it broke. */
	private static final String DATABASE_UNAVAILABLE = "The database is unavailable right now; retry the request shortly";

	/**
	 * A statement that ran past the query timeout: cancelled in PostgreSQL, its
	 * transaction rolled back.
	 */
	private static final String STATEMENT_CANCELLED = "A database statement ran longer than the service allows and "
			+ "PostgreSQL cancelled it; what it was doing was rolled back. Retry the request shortly";

	/**
	 * The members every problem body has or may have: RFC 9457's own, and this API's
	 * {@code code} and {@code errors}. No extension member may use one of these names.
	 */
	public static final Set<String> RESERVED_MEMBERS = Set.of("type", "title", "status", "detail", "instance", "code",
			"errors");

	private Problems() {
	}

	public static ProblemDetail detail(ProblemCode code, String detail, Map<String, Object> properties) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(code.status(), detail);
		problem.setType(code.type());
		problem.setTitle(code.title());
		problem.setProperty("code", code.code());
		properties.forEach(problem::setProperty);
		return problem;
	}

	public static ResponseEntity<ProblemDetail> response(ProblemCode code, String detail) {
		return response(code, detail, Map.of());
	}

	public static ResponseEntity<ProblemDetail> response(ProblemCode code, String detail,
			Map<String, Object> properties) {
		ResponseEntity.BodyBuilder builder = ResponseEntity.status(code.status())
			.contentType(MediaType.APPLICATION_PROBLEM_JSON);
		if (code == ProblemCode.SERVICE_UNAVAILABLE || code == ProblemCode.TOO_MANY_WAITING_CLAIMS) {
			builder.header(HttpHeaders.RETRY_AFTER, "1");
		}
		return builder.body(detail(code, detail, properties));
	}

	/**
	 * The problem a failure would have answered as a response of its own, as a JSON
	 * object with its {@code status}: for one entry of a batch whose other entries are
	 * answered beside it.
	 */
	public static Map<String, Object> of(RuntimeException failure) {
		if (failure instanceof InvalidRequest invalid) {
			// As the response of its own would: the fields with what is wrong with each.
			Map<String, Object> problem = body(invalid.code(), invalid.detail(), invalid.properties());
			problem.put("errors", invalid.errors());
			return problem;
		}
		if (failure instanceof RequestRejected rejected) {
			return body(rejected.code(), rejected.detail(), rejected.properties());
		}
		if (failure instanceof ConcurrencyFailureException) {
			return body(ProblemCode.SERVICE_UNAVAILABLE,
					"The request kept conflicting with concurrent changes; retry it", Map.of());
		}
		String unavailable = databaseUnavailableDetail(failure);
		if (unavailable != null) {
			return body(ProblemCode.SERVICE_UNAVAILABLE, unavailable, Map.of());
		}
		log.error("Unexpected failure of one entry of a batch", failure);
		return body(ProblemCode.INTERNAL_ERROR, "An unexpected error occurred", Map.of());
	}

	/**
	 * The 503's detail for a failure of the database rather than of the request: a
	 * statement cancelled past the query timeout (checked first: its SQLSTATE counts as
	 * unavailable too), or the database out of reach; null for anything else.
	 */
	static String databaseUnavailableDetail(Throwable failure) {
		if (StatementCancelled.isCauseOf(failure)) {
			return STATEMENT_CANCELLED;
		}
		return DatabaseUnavailable.isCauseOf(failure) ? DATABASE_UNAVAILABLE : null;
	}

	/**
	 * Whether the failure means that PostgreSQL cannot be reached right now (answered
	 * 503), as opposed to a bug.
	 */
	public static boolean isDatabaseUnavailable(Throwable failure) {
		return DatabaseUnavailable.isCauseOf(failure);
	}

	private static Map<String, Object> body(ProblemCode code, String detail, Map<String, Object> properties) {
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", code.type().toString());
		problem.put("title", code.title());
		problem.put("status", code.status().value());
		problem.put("detail", detail);
		problem.put("code", code.code());
		problem.putAll(properties);
		return problem;
	}

	public static ResponseEntity<ProblemDetail> invalid(List<FieldError> errors) {
		return response(ProblemCode.VALIDATION_FAILED, dev.workgraph.problem.InvalidRequest.describe(errors),
				Map.of("errors", errors));
	}

	/**
	 * The problem body as JSON text, for places that write the response before Spring MVC
	 * runs.
	 */
	public static String json(ProblemCode code, String detail) {
		return json(code.status().value(), code, detail);
	}

	/** As {@link #json(ProblemCode, String)}, for a status the code does not own. */
	public static String json(int status, ProblemCode code, String detail) {
		return """
				{"type":"%s","title":"%s","status":%d,"detail":"%s","code":"%s"}""".formatted(code.type(), code.title(),
				status, detail.replace("\\", "\\\\").replace("\"", "\\\""), code.code());
	}

	/**
	 * The code for an error status raised outside the application (by the servlet
	 * container): the API's code for that status, else a generic one.
	 */
	public static ProblemCode codeFor(int status) {
		return Arrays.stream(ProblemCode.values())
			.filter((candidate) -> candidate.status().value() == status)
			.findFirst()
			.orElse((status >= 500) ? ProblemCode.INTERNAL_ERROR : ProblemCode.MALFORMED_REQUEST);
	}

}
