package dev.workgraph.problem;

import java.util.Comparator;
import java.util.List;
import java.util.UUID;

import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.method.ParameterValidationResult;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.MissingPathVariableException;
import org.springframework.web.bind.MissingRequestHeaderException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.util.DisconnectedClientHelper;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * Turns every failure into an RFC 9457 problem with a stable {@code code}
 * (docs/http-api.md, "Problems"). Details are written for the caller: they name fields
 * and ids, never Java types, SQL or stack frames. Only a genuinely unexpected failure is
 * a 500, logged here with its stack trace and answered without it.
 */
@RestControllerAdvice
class ProblemAdvice {

	private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);

	@ExceptionHandler(RequestRejected.class)
	ResponseEntity<ProblemDetail> rejected(RequestRejected ex) {
		if (ex instanceof InvalidRequest invalid) {
			return Problems.invalid(invalid.errors());
		}
		if (ex.code().status().is5xxServerError()) {
			// The caller is told to come back; the operator should hear about it too.
			log.warn("Answered {}: {}", ex.code().code(), ex.detail());
		}
		return Problems.response(ex.code(), ex.detail(), ex.properties());
	}

	@ExceptionHandler(MethodArgumentNotValidException.class)
	ResponseEntity<ProblemDetail> invalidBody(MethodArgumentNotValidException ex) {
		List<FieldError> errors = ex.getBindingResult()
			.getFieldErrors()
			.stream()
			.map((error) -> new FieldError(error.getField(), error.getDefaultMessage()))
			.sorted(Comparator.comparing(FieldError::field))
			.toList();
		if (errors.isEmpty()) {
			errors = List.of(new FieldError("body", "is not valid"));
		}
		return Problems.invalid(errors);
	}

	@ExceptionHandler(HandlerMethodValidationException.class)
	ResponseEntity<ProblemDetail> invalidParameters(HandlerMethodValidationException ex) {
		List<FieldError> errors = ex.getParameterValidationResults()
			.stream()
			.flatMap((result) -> result.getResolvableErrors()
				.stream()
				.map((error) -> new FieldError(parameterName(result), error.getDefaultMessage())))
			.toList();
		return Problems.invalid(errors);
	}

	private static String parameterName(ParameterValidationResult result) {
		String name = result.getMethodParameter().getParameterName();
		return (name != null) ? name : "parameter";
	}

	/**
	 * A body that is missing or unreadable. JSON that does not parse or bind is explained
	 * where it is read (see {@link JsonProblems}); a Jackson failure that still arrives
	 * here is judged the same way.
	 */
	@ExceptionHandler(HttpMessageNotReadableException.class)
	ResponseEntity<ProblemDetail> unreadable(HttpMessageNotReadableException ex) {
		if (BodyTooLarge.isCauseOf(ex)) {
			return tooLarge();
		}
		if (ex.getCause() instanceof JacksonException jackson) {
			return rejected(JsonProblems.ofBinding(jackson));
		}
		return Problems.response(ProblemCode.MALFORMED_REQUEST, "The request body is missing or is not JSON");
	}

	private static ResponseEntity<ProblemDetail> tooLarge() {
		return Problems.response(ProblemCode.PAYLOAD_TOO_LARGE, "The request body is larger than the limit");
	}

	@ExceptionHandler(MethodArgumentTypeMismatchException.class)
	ResponseEntity<ProblemDetail> typeMismatch(MethodArgumentTypeMismatchException ex) {
		boolean inPath = ex.getParameter()
			.hasParameterAnnotation(org.springframework.web.bind.annotation.PathVariable.class);
		if (inPath) {
			// A malformed id in a path names nothing that exists: still 404 not_found,
			// but the detail says why, so that a typo is not taken for a deleted record.
			String expected = (ex.getRequiredType() == UUID.class)
					? " is not a well-formed id (a UUID such as 0199a3d2-8c1e-7b2a-9d4f-2e6b1c0a5f31)"
					: " is not a well-formed " + ex.getName();
			return Problems.response(ProblemCode.NOT_FOUND,
					"'" + printable(ex.getValue()) + "'" + expected + ", so " + ex.getName() + " names nothing");
		}
		String expected = (ex.getRequiredType() == UUID.class) ? "must be a UUID"
				: (ex.getRequiredType() == Integer.class) ? "must be an integer" : "has the wrong type";
		return Problems.invalid(List.of(new FieldError(ex.getName(), expected)));
	}

	private static String printable(Object value) {
		String text = String.valueOf(value);
		text = text.codePoints()
			.filter((c) -> c >= 0x20 && c != 0x7f && !Character.isSurrogate((char) c))
			.limit(100)
			.collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
			.toString();
		return text;
	}

	@ExceptionHandler({ MissingServletRequestParameterException.class, MissingRequestHeaderException.class })
	ResponseEntity<ProblemDetail> missing(Exception ex) {
		String name = switch (ex) {
			case MissingServletRequestParameterException p -> p.getParameterName();
			case MissingRequestHeaderException h -> h.getHeaderName();
			default -> "parameter";
		};
		return Problems.invalid(List.of(new FieldError(name, "is required")));
	}

	/**
	 * A path id that converts to nothing ({@code /items/%20} is blank once trimmed) is a
	 * malformed id in a path, which names nothing that exists (docs/http-api.md, "Ids in
	 * paths and bodies").
	 */
	@ExceptionHandler(MissingPathVariableException.class)
	ResponseEntity<ProblemDetail> blankPathVariable(MissingPathVariableException ex) {
		return Problems.response(ProblemCode.NOT_FOUND, "No resource has a blank " + ex.getVariableName());
	}

	/**
	 * Tomcat decodes the query string when a parameter is first read, and fails there on
	 * bad percent-encoding ({@code ?cursor=%%%}) or bytes that are not UTF-8.
	 */
	@ExceptionHandler(InvalidParameterException.class)
	ResponseEntity<ProblemDetail> undecodableQueryString(InvalidParameterException ex) {
		return Problems.response(ProblemCode.MALFORMED_REQUEST,
				"The query string is not valid: parameters must be percent-encoded UTF-8");
	}

	@ExceptionHandler(HttpMediaTypeNotSupportedException.class)
	ResponseEntity<ProblemDetail> unsupportedMediaType(HttpMediaTypeNotSupportedException ex) {
		return Problems.response(ProblemCode.UNSUPPORTED_MEDIA_TYPE,
				"Send the request body as application/json (Content-Type: application/json)");
	}

	@ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
	ResponseEntity<ProblemDetail> notAcceptable(HttpMediaTypeNotAcceptableException ex) {
		return Problems.response(ProblemCode.NOT_ACCEPTABLE, "Responses are application/json");
	}

	@ExceptionHandler(HttpRequestMethodNotSupportedException.class)
	ResponseEntity<ProblemDetail> methodNotAllowed(HttpRequestMethodNotSupportedException ex) {
		ResponseEntity<ProblemDetail> problem = Problems.response(ProblemCode.METHOD_NOT_ALLOWED,
				"Method " + ex.getMethod() + " is not supported here");
		if (ex.getSupportedHttpMethods() == null) {
			return problem;
		}
		HttpHeaders headers = new HttpHeaders();
		headers.putAll(problem.getHeaders());
		headers.setAllow(ex.getSupportedHttpMethods());
		return new ResponseEntity<>(problem.getBody(), headers, problem.getStatusCode());
	}

	@ExceptionHandler(NoResourceFoundException.class)
	ResponseEntity<ProblemDetail> noResource(NoResourceFoundException ex) {
		return Problems.response(ProblemCode.NOT_FOUND, "There is nothing at " + printable("/" + ex.getResourcePath()));
	}

	@ExceptionHandler(AsyncRequestNotUsableException.class)
	void clientWentAway() {
		// The client closed the connection; there is nobody to answer.
	}

	@ExceptionHandler(ConcurrencyFailureException.class)
	ResponseEntity<ProblemDetail> contended(ConcurrencyFailureException ex) {
		log.warn("Giving up after repeated lock conflicts: {}", ex.getMessage());
		return Problems.response(ProblemCode.SERVICE_UNAVAILABLE,
				"The request kept conflicting with concurrent changes; retry it");
	}

	@ExceptionHandler(Exception.class)
	ResponseEntity<ProblemDetail> unexpected(Exception ex) {
		if (BodyTooLarge.isCauseOf(ex)) {
			return tooLarge();
		}
		if (DisconnectedClientHelper.isClientDisconnectedException(ex)) {
			// The client went away before its answer was written (a worker stopped, a
			// load
			// generator ended its run): nobody to answer, nothing failed here.
			log.debug("The client disconnected before its answer was written: {}", ex.getMessage());
			return null;
		}
		if (DatabaseUnavailable.isPoolExhausted(ex)) {
			log.warn("Overloaded: {}", ex.getMessage());
			return Problems.response(ProblemCode.SERVICE_UNAVAILABLE,
					"Every database connection stayed busy for the pool timeout (the service is overloaded); "
							+ "retry the request shortly");
		}
		String unavailable = Problems.databaseUnavailableDetail(ex);
		if (unavailable != null) {
			log.warn("{} ({})", unavailable, ex.getMessage());
			return Problems.response(ProblemCode.SERVICE_UNAVAILABLE, unavailable);
		}
		log.error("Unexpected failure", ex);
		return Problems.response(ProblemCode.INTERNAL_ERROR, "An unexpected error occurred");
	}

}
