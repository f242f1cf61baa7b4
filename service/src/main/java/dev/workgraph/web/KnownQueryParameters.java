package dev.workgraph.web;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.workgraph.problem.FieldError;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.MethodParameter;
import org.springframework.util.StringUtils;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Refuses a query parameter the endpoint does not take (422 {@code validation_failed}
 * naming it), on every endpoint of the service at once, as an unknown body field is
 * refused. Silently ignoring {@code GET /items?workerId=x} would answer an unfiltered
 * list that looks filtered. What an endpoint takes is read from its handler method's
 * {@code @RequestParam}s, so a new parameter needs nothing here.
 *
 * <p>
 * The query string is read as sent, not through the servlet's parameter map, which would
 * also read a form-encoded body (that body is refused as 415, and must not be consumed
 * here).
 */
class KnownQueryParameters implements HandlerInterceptor {

	private static final String PACKAGE = "dev.workgraph.";

	/** Per handler method: the names it takes, or null when it takes any. */
	private final Map<HandlerMethod, Accepted> accepted = new ConcurrentHashMap<>();

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		if (request.getDispatcherType() != DispatcherType.REQUEST || !(handler instanceof HandlerMethod method)
				|| !method.getBeanType().getName().startsWith(PACKAGE) || request.getQueryString() == null) {
			return true;
		}
		Accepted takes = this.accepted.computeIfAbsent(method, KnownQueryParameters::accepted);
		if (takes.any()) {
			return true;
		}
		List<FieldError> unknown = new ArrayList<>();
		for (String name : names(request.getQueryString())) {
			if (!takes.names().contains(name)) {
				unknown.add(new FieldError(name,
						takes.names().isEmpty()
								? "is not a known parameter: " + request.getMethod() + " " + request.getRequestURI()
										+ " takes no query parameters"
								: "is not a known parameter; this endpoint takes " + String.join(", ", takes.names())));
			}
		}
		if (!unknown.isEmpty()) {
			throw new InvalidRequest(unknown);
		}
		return true;
	}

	private static Accepted accepted(HandlerMethod method) {
		Set<String> names = new LinkedHashSet<>();
		for (MethodParameter parameter : method.getMethodParameters()) {
			RequestParam param = parameter.getParameterAnnotation(RequestParam.class);
			if (param == null) {
				continue;
			}
			if (Map.class.isAssignableFrom(parameter.getParameterType())) {
				return new Accepted(true, Set.of());
			}
			String name = StringUtils.hasText(param.name()) ? param.name() : parameter.getParameterName();
			names.add(name);
		}
		return new Accepted(false, names);
	}

	/**
	 * The distinct, decoded names in a query string, in order; empty names are skipped.
	 */
	static Set<String> names(String query) {
		Set<String> names = new LinkedHashSet<>();
		for (String pair : query.split("&")) {
			int equals = pair.indexOf('=');
			String name = (equals >= 0) ? pair.substring(0, equals) : pair;
			if (name.isEmpty()) {
				continue;
			}
			try {
				names.add(URLDecoder.decode(name, StandardCharsets.UTF_8));
			}
			catch (IllegalArgumentException ex) {
				throw new RequestRejected(ProblemCode.MALFORMED_REQUEST,
						"The query string is not valid: parameters must be percent-encoded UTF-8");
			}
		}
		return names;
	}

	private record Accepted(boolean any, Set<String> names) {
	}

}
