package dev.workgraph.access;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.server.resource.introspection.BadOpaqueTokenException;
import org.springframework.util.AntPathMatcher;

/**
 * What a 401 or a 403 says: which of the ways to fail authentication it was (no header,
 * no {@code Bearer } scheme, a malformed token, a token the service does not accept), and
 * which role the request needs. Nothing in it tells whether a token or a token id exists:
 * unknown and revoked tokens get the same words.
 */
final class Refusals {

	private static final AntPathMatcher PATHS = new AntPathMatcher();

	private static final String BEARER = "Bearer ";

	private Refusals() {
	}

	static String unauthenticated(HttpServletRequest request, AuthenticationException failure) {
		String header = request.getHeader(HttpHeaders.AUTHORIZATION);
		if (header == null || header.isBlank()) {
			return "This request has no Authorization header: send Authorization: Bearer <token>";
		}
		if (!header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
			return "The Authorization header must be 'Bearer ' followed by the token (it names another "
					+ "scheme, or none)";
		}
		if (failure != null && failure.getCause() instanceof BadOpaqueTokenException) {
			return "The bearer token is not one this service accepts (unknown or revoked): use a token an "
					+ "admin issued and has not revoked";
		}
		return "The bearer token is malformed: send it exactly as it was issued (wg_ and 43 more characters)";
	}

	/** 403: which role the request needs, and which the token has. */
	static String forbidden(HttpServletRequest request) {
		String needs = neededRole(request.getMethod(), request.getRequestURI());
		String has = Caller.current().map((caller) -> "this token's role is " + caller.role().wire()).orElse("");
		return request.getMethod() + " " + request.getRequestURI() + " needs " + needs
				+ (has.isEmpty() ? "" : "; " + has);
	}

	/** The roles that may make this request, as the rules of {@link AccessRules} say. */
	static String neededRole(String method, String path) {
		if (HttpMethod.GET.matches(method) && "/tokens/current".equals(path)) {
			return "a token of any role";
		}
		if ("/mcp".equals(path) || (HttpMethod.GET.matches(method) && AccessRules.WORKER_STREAM.equals(path))) {
			return "a worker token";
		}
		if (matches(path, AccessRules.ADMIN_PATHS)) {
			return "an admin token";
		}
		if (HttpMethod.POST.matches(method) && matches(path, AccessRules.EVENT_POSTS)) {
			return "an events, operator or admin token";
		}
		if (HttpMethod.POST.matches(method) && matches(path, AccessRules.WORKER_POSTS)) {
			return "a worker token";
		}
		if (HttpMethod.GET.matches(method) && matches(path, AccessRules.SHARED_READS)) {
			return "a worker, operator or admin token";
		}
		if (matches(path, AccessRules.OPERATOR_PATHS)) {
			return "an operator or admin token";
		}
		return "a token of any role";
	}

	private static boolean matches(String path, String[] patterns) {
		for (String pattern : patterns) {
			if (PATHS.match(pattern, path)) {
				return true;
			}
		}
		return false;
	}

}
