package dev.workgraph.web;

import java.io.IOException;
import java.io.PrintWriter;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.Problems;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;

/**
 * Tomcat's error page for requests it refuses before any servlet runs (a URI with bad
 * percent-encoding, an encoded slash, bytes that are not UTF-8): the problem JSON every
 * other error gets, instead of Tomcat's HTML page. Errors inside the application never
 * get here; {@link ProblemErrorController} and {@code ProblemAdvice} answer those.
 * Installed as the host's error report valve by {@link WebConfiguration}; Tomcat creates
 * it by class name, hence public.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

	@Override
	protected void report(Request request, Response response, Throwable throwable) {
		int status = response.getStatus();
		// As Tomcat's own valve: only errors, only once, only if nothing was written.
		if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
			return;
		}
		ProblemCode code = Problems.codeFor(status);
		try {
			if (response.getHeader(RequestIdFilter.HEADER) == null) {
				// Refused before any filter ran: every answer carries an id all the same.
				response.setHeader(RequestIdFilter.HEADER,
						RequestIdFilter.requestId(request.getHeader(RequestIdFilter.HEADER)));
			}
			response.setContentType("application/problem+json");
			response.setCharacterEncoding("UTF-8");
			PrintWriter writer = response.getReporter();
			if (writer != null) {
				writer.write(Problems.json(status, code, (status >= 500) ? "An unexpected error occurred"
						: "The request could not be processed: it is not a well-formed HTTP request"));
				response.finishResponse();
			}
		}
		catch (IOException | IllegalStateException ex) {
			// The client is gone or the response was committed meanwhile: nothing to add.
		}
	}

}
