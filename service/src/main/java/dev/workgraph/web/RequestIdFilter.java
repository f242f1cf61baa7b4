package dev.workgraph.web;

import java.io.IOException;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.workgraph.sql.LogContext;
import dev.workgraph.sql.Uuid7;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Gives every request an id and every answer its {@code X-Request-Id} header
 * (docs/operations.md, "Logs"). A caller's own id is kept when it is a sane token (1 to
 * 128 letters, digits and {@code . _ : -}), so that ids can be followed across services;
 * anything else (absent, too long, spaces, control characters that could forge log lines)
 * is replaced by a generated UUID. The id, and the lease or item named in the path, go
 * into the log context of the thread for as long as it serves the request. Runs first of
 * all filters, so even a refused request (413) answers with its id.
 *
 * <p>
 * One line per answered request ({@code dev.workgraph.web.RequestLog}): method, path
 * (never the query string, the headers or the body), status and time taken; at DEBUG, or
 * WARN for a 5xx.
 */
class RequestIdFilter extends OncePerRequestFilter {

	static final String HEADER = "X-Request-Id";

	private static final Pattern SANE = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

	private static final Pattern LEASE_PATH = Pattern.compile("^/leases/([0-9a-fA-F-]{36})(?:/.*)?$");

	private static final Pattern ITEM_PATH = Pattern.compile("^/items/([0-9a-fA-F-]{36})(?:/.*)?$");

	private static final Logger requestLog = LoggerFactory.getLogger("dev.workgraph.web.RequestLog");

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String requestId = requestId(request.getHeader(HEADER));
		response.setHeader(HEADER, requestId);
		MDC.put(LogContext.REQUEST_ID, requestId);
		String path = request.getRequestURI();
		LogContext.lease(uuidIn(LEASE_PATH, path));
		LogContext.item(uuidIn(ITEM_PATH, path));
		long started = System.nanoTime();
		try {
			chain.doFilter(request, response);
		}
		finally {
			logAnswer(request.getMethod(), path, response.getStatus(), started);
			LogContext.clear();
		}
	}

	static String requestId(String presented) {
		return (presented != null && SANE.matcher(presented).matches()) ? presented : Uuid7.next().toString();
	}

	private static UUID uuidIn(Pattern pattern, String path) {
		Matcher matcher = pattern.matcher(path);
		if (!matcher.matches()) {
			return null;
		}
		try {
			return UUID.fromString(matcher.group(1));
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private static void logAnswer(String method, String path, int status, long started) {
		if (status >= 500 || requestLog.isDebugEnabled()) {
			long millis = (System.nanoTime() - started) / 1_000_000;
			// The path is the request's, made printable: it cannot forge a line.
			String printable = path.replaceAll("[^\\x21-\\x7e]", "?");
			if (status >= 500) {
				requestLog.warn("{} {} answered {} in {} ms", method, printable, status, millis);
			}
			else {
				requestLog.debug("{} {} answered {} in {} ms", method, printable, status, millis);
			}
		}
	}

}
