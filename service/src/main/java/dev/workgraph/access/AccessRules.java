package dev.workgraph.access;

import java.io.IOException;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.Problems;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.config.ObjectPostProcessor;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.server.resource.web.BearerTokenAuthenticationEntryPoint;
import org.springframework.security.oauth2.server.resource.web.authentication.BearerTokenAuthenticationFilter;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * Who may call what: the one place (docs/http-api.md, "Access"). Every request but the
 * health probes, the API documentation and the console's static files needs
 * {@code Authorization: Bearer <token>} (RFC 6750, Spring Security's resource server with
 * {@link TokenIntrospector}); what a token may do follows from its role. Finer rules that
 * need the data (a worker acts only on its own leases and reads only items it holds or
 * held) are checked by the features through {@link Caller}.
 *
 * <p>
 * Stateless: no session, no cookie, so no CSRF token either. Missing, malformed, unknown
 * or revoked tokens are 401 {@code unauthenticated} with
 * {@code WWW-Authenticate: Bearer}; a known token without the right is 403
 * {@code forbidden}. Neither answer repeats the token.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AccessProperties.class)
class AccessRules {

	private static final String OPERATOR = "OPERATOR";

	private static final String WORKER = "WORKER";

	private static final String ADMIN = "ADMIN";

	private static final String EVENTS = "EVENTS";

	/** Events from the outside world: operators and tokens of role events (POST). */
	static final String[] EVENT_POSTS = { "/events" };

	/** Token and webhook management: admins. */
	static final String[] ADMIN_PATHS = { "/tokens", "/tokens/**", "/webhooks", "/webhooks/**" };

	/** Claims and everything done under a lease: workers (POST). */
	static final String[] WORKER_POSTS = { "/claims", "/claims/batch", "/completions", "/leases/**" };

	/** The worker stream (a WebSocket): workers (GET, the upgrade). */
	static final String WORKER_STREAM = "/worker-stream";

	/** Reads a worker shares with operators (GET). */
	static final String[] SHARED_READS = { "/leases/*", "/leases/*/fence", "/items/*", "/items/*/leases",
			"/items/*/checkpoints" };

	/** The graph, the attention inbox, queues, actuator: operators and admins. */
	static final String[] OPERATOR_PATHS = { "/items", "/items/**", "/attention-requests", "/attention-requests/**",
			"/queues", "/queues/**", "/changes", "/actuator", "/actuator/**" };

	@Bean
	SecurityFilterChain securityFilterChain(HttpSecurity http, AccessProperties properties, Tokens tokens,
			TokenMemory memory) throws Exception {
		http.csrf(AbstractHttpConfigurer::disable)
			.sessionManagement((sessions) -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.requestCache(AbstractHttpConfigurer::disable)
			.logout(AbstractHttpConfigurer::disable)
			.formLogin(AbstractHttpConfigurer::disable)
			.httpBasic(AbstractHttpConfigurer::disable);
		if (!properties.enabled()) {
			// workgraph.security.enabled=false: everyone may do everything, and nobody is
			// recorded as the author of a change.
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll()).build();
		}
		http.authorizeHttpRequests((requests) -> requests
			// An error or async dispatch belongs to a request that was already let in.
			.dispatcherTypeMatchers(DispatcherType.ERROR, DispatcherType.ASYNC)
			.permitAll()
			// Open: probes, the API documentation, the console's static files (the
			// console
			// sends its token as a bearer header from JavaScript).
			.requestMatchers(HttpMethod.GET, "/actuator/health", "/actuator/health/**")
			.permitAll()
			.requestMatchers(HttpMethod.GET, "/v3/api-docs", "/v3/api-docs/**", "/swagger-ui.html", "/swagger-ui/**")
			.permitAll()
			.requestMatchers(HttpMethod.GET, "/console", "/console/**")
			.permitAll()
			// The fence tokens' public keys, for systems that hold no token of ours.
			.requestMatchers(HttpMethod.GET, "/.well-known/jwks.json")
			.permitAll()
			// Any token: who am I (the console shows it).
			.requestMatchers(HttpMethod.GET, "/tokens/current")
			.authenticated()
			// Admin: token management.
			.requestMatchers(ADMIN_PATHS)
			.hasRole(ADMIN)
			// Workers: claims and everything done under a lease (only their own leases:
			// checked by the lease feature).
			.requestMatchers(HttpMethod.POST, WORKER_POSTS)
			.hasRole(WORKER)
			// Events: the systems that send them (only some names, for a scoped token:
			// checked by the wait feature), and operators.
			.requestMatchers(HttpMethod.POST, EVENT_POSTS)
			.hasAnyRole(EVENTS, OPERATOR)
			// Workers: the MCP server (docs/mcp.md), whose sessions work as the token's
			// worker through the calls above.
			.requestMatchers("/mcp")
			.hasRole(WORKER)
			// Workers: the worker stream (docs/worker-stream.md), one connection per
			// worker process, opened with the token and acting as it.
			.requestMatchers(HttpMethod.GET, WORKER_STREAM)
			.hasRole(WORKER)
			// Creating items: operators, and worker tokens an admin allowed to (in
			// their queues, never as a child: checked by the item feature).
			.requestMatchers(HttpMethod.POST, "/items")
			.hasAnyAuthority("ROLE_" + OPERATOR, Caller.CREATE_ITEMS)
			// Reads a worker shares with operators (a worker only its own leases and the
			// items it holds or held: checked by the features).
			.requestMatchers(HttpMethod.GET, SHARED_READS)
			.hasAnyRole(WORKER, OPERATOR)
			// Operators (and admins): the graph, the attention inbox, queues, actuator.
			.requestMatchers(OPERATOR_PATHS)
			.hasRole(OPERATOR)
			.anyRequest()
			.authenticated());
		BearerTokenAuthenticationEntryPoint bearer = new BearerTokenAuthenticationEntryPoint();
		http.exceptionHandling((exceptions) -> exceptions
			.authenticationEntryPoint(
					(request, response, failure) -> unauthenticated(bearer, request, response, failure))
			.accessDeniedHandler(forbidden()));
		http.oauth2ResourceServer((resourceServer) -> resourceServer
			.opaqueToken((opaque) -> opaque
				.introspector(new TokenIntrospector(tokens, memory, properties.bootstrapAdminToken())))
			.authenticationEntryPoint(
					(request, response, failure) -> unauthenticated(bearer, request, response, failure))
			.accessDeniedHandler(forbidden())
			.withObjectPostProcessor(new ObjectPostProcessor<BearerTokenAuthenticationFilter>() {
				@Override
				public <O extends BearerTokenAuthenticationFilter> O postProcess(O filter) {
					filter.setAuthenticationFailureHandler((request, response, failure) -> {
						if (failure instanceof AuthenticationServiceException) {
							// The token could not be checked (the database is away): come
							// back.
							response.setHeader(HttpHeaders.RETRY_AFTER, "1");
							writeProblem(response, ProblemCode.SERVICE_UNAVAILABLE,
									"The service cannot check tokens right now; retry shortly");
							return;
						}
						unauthenticated(bearer, request, response, failure);
					});
					return filter;
				}
			}));
		return http.build();
	}

	/**
	 * Spring Security's firewall, relaxed where the service already has its own answers:
	 * a matrix parameter in a path is just a malformed id (404) and a form or multipart
	 * body an unsupported media type (415), as with access control off. Path rules stay
	 * sound: the matchers above and Spring MVC both match paths without their matrix
	 * parameters. Everything else the strict firewall refuses (encoded slashes,
	 * {@code ..}, backslashes, control characters in the path) is still refused with 400.
	 */
	/**
	 * No observation of Spring Security's filters, authentications and authorizations: it
	 * wraps each of some fifteen filters in an observation with a timer and events on
	 * every request, a tenth of a claim's CPU, for spans nobody reads. The HTTP server
	 * observation ({@code http_server_requests_seconds}) stays.
	 */
	@Bean
	static SecurityObservationSettings securityObservationSettings() {
		return SecurityObservationSettings.noObservations();
	}

	@Bean
	static HttpFirewall httpFirewall() {
		StrictHttpFirewall firewall = new StrictHttpFirewall();
		firewall.setAllowSemicolon(true);
		firewall.setAllowedParameterNames((name) -> true);
		firewall.setAllowedParameterValues((value) -> true);
		return firewall;
	}

	private static void unauthenticated(BearerTokenAuthenticationEntryPoint bearer, HttpServletRequest request,
			HttpServletResponse response, AuthenticationException failure) throws IOException {
		bearer.commence(request, response, failure);
		writeProblem(response, ProblemCode.UNAUTHENTICATED, Refusals.unauthenticated(request, failure));
	}

	private static AccessDeniedHandler forbidden() {
		return (request, response, denied) -> writeProblem(response, ProblemCode.FORBIDDEN,
				Refusals.forbidden(request));
	}

	private static void writeProblem(HttpServletResponse response, ProblemCode code, String detail) throws IOException {
		response.setStatus(code.status().value());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.getWriter().write(Problems.json(code, detail));
	}

}
