package dev.workgraph.web;

import dev.workgraph.problem.BodyTooLarge;
import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.Problems;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Answers errors that the servlet container raises outside Spring MVC (the request never
 * reached a controller) with the same problem format, instead of Boot's default error
 * body.
 */
@RestController
class ProblemErrorController implements ErrorController {

	@RequestMapping("${server.error.path:/error}")
	ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
		Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
		if (status == null && request.getDispatcherType() != DispatcherType.ERROR) {
			// A client asked for the error path itself: there is nothing here for it.
			return Problems.response(ProblemCode.NOT_FOUND, "There is nothing at this path");
		}
		int code = (status instanceof Integer value) ? value : 500;
		Throwable failure = (Throwable) request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
		if (failure != null && BodyTooLarge.isCauseOf(failure)) {
			code = ProblemCode.PAYLOAD_TOO_LARGE.status().value();
		}
		ProblemCode problem = Problems.codeFor(code);
		return Problems.response(problem, (problem == ProblemCode.INTERNAL_ERROR) ? "An unexpected error occurred"
				: "The request could not be processed: " + problem.title().toLowerCase(java.util.Locale.ROOT));
	}

}
