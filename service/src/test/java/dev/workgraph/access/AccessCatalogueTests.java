package dev.workgraph.access;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;

import dev.workgraph.testing.Api;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.web.servlet.handler.AbstractUrlHandlerMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hostile access catalogue: every endpoint the service serves, called by everyone who
 * must not get through — no credentials, the wrong scheme, a malformed, unknown or
 * revoked bearer token, another worker (limited to some queues or not), a worker on an
 * operator's endpoint, an operator or admin on a worker's — answers 401
 * {@code unauthenticated} (with {@code WWW-Authenticate: Bearer}) or 403
 * {@code forbidden} as an RFC 9457 problem, never echoes a token, and leaves every table
 * exactly as it was.
 *
 * <p>
 * The endpoints are read from Spring MVC's handler mappings, so an endpoint added without
 * a catalogue entry fails {@link #everyServedEndpointHasACatalogueEntry()}: add one line
 * to {@link #CATALOGUE} naming its access rule and a sample request that would succeed
 * for its rightful caller.
 *
 * <p>
 * Sample paths and bodies refer to fixtures made once per run: {@code {item}} (ready),
 * {@code {blockedItem}} (depends on {@code {item}}), {@code {leasedItem}} under
 * {@code {lease}} at {@code {epoch}}, held by worker {@code {workerA}}, an open
 * non-blocking attention request {@code {attention}} on that lease, the operator token's
 * id {@code {operatorTokenId}}, a disabled webhook {@code {webhook}}, and a well-formed
 * id of nothing, {@code {unknown}}.
 */
class AccessCatalogueTests extends HostileTest {

	/** Who may call an endpoint (docs/http-api.md, "Access"). */
	enum Access {

		/** Anyone, without a token: health and the API documentation. */
		OPEN,
		/** Any valid token; nothing to own (the error path, unknown paths). */
		AUTHENTICATED,
		/** Operators and admins. */
		OPERATOR,
		/** Operators and admins, and a worker for items it holds or held. */
		ITEM_READ,
		/** Operators and admins, and the worker whose lease it is. */
		LEASE_READ,
		/** Only the worker whose lease it is. */
		LEASE_WRITE,
		/** Only workers, each for itself. */
		CLAIM,
		/**
		 * Only workers; each entry is checked on its own, so another worker's lease is a
		 * 403 entry in a 200 answer.
		 */
		BATCH_COMPLETION,
		/**
		 * Only workers, any worker: the worker stream, whose every message then acts as
		 * the token's worker (WorkerStreamAccessTests).
		 */
		WORKER,
		/** Admins only. */
		ADMIN,
		/**
		 * Operators and admins, and events tokens that may send the sample's event name.
		 */
		EVENTS

	}

	/**
	 * Every endpoint, one line each: method and path as mapped, who may call it, and a
	 * sample request that its rightful caller would see succeed.
	 */
	/** The Swagger UI webjar's version, which springdoc puts into some of its paths. */
	private static final String SWAGGER_UI_VERSION = webjarVersion("swagger-ui");

	static final List<Endpoint> CATALOGUE = List.of(
			// Items
			endpoint("POST /items", Access.OPERATOR, "/items", "{\"title\":\"written by an intruder\"}"),
			endpoint("GET /items", Access.OPERATOR, "/items", null),
			endpoint("GET /items/{id}", Access.ITEM_READ, "/items/{leasedItem}", null),
			endpoint("GET /items/{id}/leases", Access.ITEM_READ, "/items/{leasedItem}/leases", null),
			endpoint("GET /items/{id}/checkpoints", Access.ITEM_READ, "/items/{leasedItem}/checkpoints", null),
			endpoint("GET /items/{id}/dependents", Access.OPERATOR, "/items/{item}/dependents", null),
			endpoint("POST /items/{id}/dependencies", Access.OPERATOR, "/items/{item}/dependencies",
					"{\"dependsOn\":\"{leasedItem}\"}"),
			endpoint("DELETE /items/{id}/dependencies/{dependsOnId}", Access.OPERATOR,
					"/items/{blockedItem}/dependencies/{item}", null),
			endpoint("PATCH /items/{id}", Access.OPERATOR, "/items/{item}", "{\"notBefore\":\"2099-01-01T00:00:00Z\"}"),
			endpoint("POST /items/{id}/cancel", Access.OPERATOR, "/items/{leasedItem}/cancel",
					"{\"reason\":\"an intruder says so\"}"),
			// Claims and leases
			endpoint("POST /claims", Access.CLAIM, "/claims", "{\"workerId\":\"{workerA}\"}"),
			endpoint("POST /claims/batch", Access.CLAIM, "/claims/batch", "{\"workerId\":\"{workerA}\",\"limit\":5}"),
			endpoint("POST /completions", Access.BATCH_COMPLETION, "/completions",
					"{\"completions\":[{\"leaseId\":\"{lease}\",\"epoch\":{epoch},\"result\":{\"by\":\"intruder\"}}]}"),
			endpoint("GET /leases/{leaseId}", Access.LEASE_READ, "/leases/{lease}", null),
			endpoint("GET /leases/{leaseId}/fence", Access.LEASE_READ, "/leases/{lease}/fence", null),
			endpoint("POST /leases/{leaseId}/renew", Access.LEASE_WRITE, "/leases/{lease}/renew",
					"{\"epoch\":{epoch},\"leaseSeconds\":600}"),
			endpoint("POST /leases/{leaseId}/complete", Access.LEASE_WRITE, "/leases/{lease}/complete",
					"{\"epoch\":{epoch},\"result\":{\"by\":\"intruder\"}}"),
			endpoint("POST /leases/{leaseId}/release", Access.LEASE_WRITE, "/leases/{lease}/release",
					"{\"epoch\":{epoch},\"reason\":\"an intruder says so\"}"),
			endpoint("POST /leases/{leaseId}/cancel", Access.LEASE_WRITE, "/leases/{lease}/cancel",
					"{\"epoch\":{epoch},\"reason\":\"an intruder says so\"}"),
			endpoint("POST /leases/{leaseId}/decompose", Access.LEASE_WRITE, "/leases/{lease}/decompose",
					"{\"epoch\":{epoch},\"children\":[{\"key\":\"a\",\"title\":\"an intruder's child\"}]}"),
			endpoint("POST /leases/{leaseId}/attention-requests", Access.LEASE_WRITE,
					"/leases/{lease}/attention-requests",
					"{\"epoch\":{epoch},\"question\":\"an intruder asks\",\"blocking\":true}"),
			endpoint("POST /leases/{leaseId}/fail", Access.LEASE_WRITE, "/leases/{lease}/fail",
					"{\"epoch\":{epoch},\"error\":{\"by\":\"intruder\"},\"retryable\":false}"),
			endpoint("POST /leases/{leaseId}/checkpoints", Access.LEASE_WRITE, "/leases/{lease}/checkpoints",
					"{\"epoch\":{epoch},\"data\":{\"by\":\"intruder\"},\"renewSeconds\":600}"),
			endpoint("POST /leases/{leaseId}/handoff", Access.LEASE_WRITE, "/leases/{lease}/handoff",
					"{\"epoch\":{epoch},\"toWorkerId\":\"intruder\"}"),
			endpoint("POST /leases/{leaseId}/waits", Access.LEASE_WRITE, "/leases/{lease}/waits",
					"{\"epoch\":{epoch},\"event\":{\"name\":\"ci.finished\",\"key\":\"intruder\"}}"),
			// Events
			endpoint("POST /events", Access.EVENTS, "/events",
					"{\"name\":\"ci.finished\",\"key\":\"intruder\",\"payload\":{\"by\":\"intruder\"}}"),
			// Attention requests
			endpoint("GET /attention-requests", Access.OPERATOR, "/attention-requests?status=open", null),
			endpoint("GET /attention-requests/{id}", Access.OPERATOR, "/attention-requests/{attention}", null),
			endpoint("POST /attention-requests/{id}/resolve", Access.OPERATOR,
					"/attention-requests/{attention}/resolve",
					"{\"resolution\":\"an intruder answers\",\"resolvedBy\":\"intruder\"}"),
			endpoint("GET /queues", Access.OPERATOR, "/queues", null),
			endpoint("GET /queues/{name}", Access.OPERATOR, "/queues/default", null),
			endpoint("PATCH /queues/{name}", Access.OPERATOR, "/queues/default", "{\"paused\":true}"),
			// The worker stream (a WebSocket; without an upgrade its rightful caller gets
			// 400)
			endpoint("* /worker-stream", Access.WORKER, "/worker-stream", null),
			// The change stream (follow=false: the sample ends instead of streaming on)
			endpoint("GET /changes", Access.OPERATOR, "/changes?follow=false", null),
			// Webhooks
			endpoint("POST /webhooks", Access.ADMIN, "/webhooks", "{\"url\":\"https://hooks.example.com/intruder\"}"),
			endpoint("GET /webhooks", Access.ADMIN, "/webhooks", null),
			endpoint("DELETE /webhooks/{id}", Access.ADMIN, "/webhooks/{unknown}", null),
			endpoint("GET /webhooks/{id}/deliveries", Access.ADMIN, "/webhooks/{webhook}/deliveries", null),
			// Tokens
			endpoint("POST /tokens", Access.ADMIN, "/tokens", "{\"name\":\"intruder\",\"role\":\"admin\"}"),
			endpoint("GET /tokens", Access.ADMIN, "/tokens", null),
			endpoint("DELETE /tokens/{id}", Access.ADMIN, "/tokens/{operatorTokenId}", null),
			endpoint("GET /tokens/current", Access.AUTHENTICATED, "/tokens/current", null),
			// Operations
			endpoint("GET /actuator", Access.OPERATOR, "/actuator", null),
			endpoint("GET /actuator/health", Access.OPEN, "/actuator/health", null),
			endpoint("GET /actuator/health/**", Access.OPEN, "/actuator/health/liveness", null),
			endpoint("GET /actuator/info", Access.OPERATOR, "/actuator/info", null),
			endpoint("GET /actuator/consistency", Access.OPERATOR, "/actuator/consistency", null),
			endpoint("GET /actuator/prometheus", Access.OPERATOR, "/actuator/prometheus", null),
			// Documentation and the console
			endpoint("GET /.well-known/jwks.json", Access.OPEN, "/.well-known/jwks.json", null),
			endpoint("GET /v3/api-docs", Access.OPEN, "/v3/api-docs", null),
			endpoint("GET /v3/api-docs/swagger-config", Access.OPEN, "/v3/api-docs/swagger-config", null),
			endpoint("GET /v3/api-docs.yaml", Access.AUTHENTICATED, "/v3/api-docs.yaml", null),
			endpoint("GET /swagger-ui.html", Access.OPEN, "/swagger-ui.html", null),
			endpoint("* /swagger-ui/**", Access.OPEN, "/swagger-ui/index.html", null),
			endpoint("* /swagger-ui/*index.html", Access.OPEN, "/swagger-ui/index.html", null),
			endpoint("* /swagger-ui/*swagger-initializer.js", Access.OPEN, "/swagger-ui/swagger-initializer.js", null),
			// springdoc also maps Swagger UI's webjar; only its /swagger-ui/ paths are
			// open.
			endpoint("* /webjars/*swagger-ui/**", Access.AUTHENTICATED, "/webjars/swagger-ui/index.html", null),
			endpoint("* /webjars/*swagger-ui/*index.html", Access.AUTHENTICATED, "/webjars/swagger-ui/index.html",
					null),
			endpoint("* /webjars/*swagger-ui/*swagger-initializer.js", Access.AUTHENTICATED,
					"/webjars/swagger-ui/swagger-initializer.js", null),
			endpoint("* /webjars/*swagger-ui/" + SWAGGER_UI_VERSION + "/*index.html", Access.AUTHENTICATED,
					"/webjars/swagger-ui/" + SWAGGER_UI_VERSION + "/index.html", null),
			endpoint("* /webjars/*swagger-ui/" + SWAGGER_UI_VERSION + "/*swagger-initializer.js", Access.AUTHENTICATED,
					"/webjars/swagger-ui/" + SWAGGER_UI_VERSION + "/swagger-initializer.js", null),
			endpoint("* /console", Access.OPEN, "/console", null),
			endpoint("* /console/", Access.OPEN, "/console/", null),
			// Plumbing
			endpoint("* /error", Access.AUTHENTICATED, "/error", null),
			endpoint("* /**", Access.AUTHENTICATED, "/no-such-thing", null),
			endpoint("* /webjars/**", Access.AUTHENTICATED, "/webjars/no-such-thing.js", null));

	/**
	 * Entries for endpoints that other work adds at the same time; until they are served,
	 * their cases are skipped rather than failed. Any other entry must be served.
	 */
	static final Set<String> ARRIVING = Set.of();

	/** Text that must never reach a client: Java types, stack frames, SQL. */
	private static final List<String> INTERNALS = List.of("java.", "jakarta.", "org.springframework", "org.postgresql",
			"Exception", "dev.workgraph", "SQLState", "\tat ");

	@Autowired
	private ApplicationContext context;

	@Test
	void everyServedEndpointHasACatalogueEntry() {
		Set<String> catalogued = new TreeSet<>(CATALOGUE.stream().map(Endpoint::key).toList());
		List<String> missing = served().stream()
			.filter((key) -> !catalogued.contains(key))
			.map((key) -> "add a case to AccessCatalogueTests.CATALOGUE for " + key)
			.toList();
		assertThat(missing).as("endpoints without a hostile access case").isEmpty();
	}

	@Test
	void everyCatalogueEntryIsServedOrStillArriving() {
		Set<String> served = served();
		assertThat(CATALOGUE.stream().map(Endpoint::key).filter((key) -> !served.contains(key)))
			.as("catalogue entries for endpoints this build does not serve")
			.allMatch(ARRIVING::contains);
		assertThat(CATALOGUE.stream().map(Endpoint::key)).doesNotHaveDuplicates();
	}

	@TestFactory
	Stream<DynamicNode> everyoneWithoutTheRightIsRefusedAndNothingIsWritten() {
		Fixtures fixtures = fixtures();
		Set<String> served = served();
		Map<String, String> before = EveryTable.fingerprint(this.jdbc);
		return CATALOGUE.stream().map((endpoint) -> {
			List<DynamicTest> cases = new ArrayList<>();
			for (Identity identity : identities()) {
				Expected expected = expectation(endpoint.access(), identity.kind());
				if (expected == null) {
					continue;
				}
				cases.add(DynamicTest.dynamicTest(identity.name() + " → " + expected, () -> {
					Assumptions.assumeTrue(served.contains(endpoint.key()), endpoint.key() + " is not served yet");
					Api.Response response = send(endpoint, identity.authorization(fixtures), fixtures);
					String what = endpoint.key() + " as " + identity.name();
					if (expected.perEntry()) {
						assertEntryRefused(response, expected, fixtures, what);
					}
					else {
						assertRefused(response, expected, fixtures, what);
					}
					assertThat(EveryTable.fingerprint(this.jdbc)).as("tables after " + what).isEqualTo(before);
				}));
			}
			return DynamicContainer.dynamicContainer(endpoint.key(), cases.stream());
		});
	}

	@TestFactory
	Stream<DynamicTest> openEndpointsNeedNoToken() {
		Fixtures fixtures = fixtures();
		Set<String> served = served();
		Map<String, String> before = EveryTable.fingerprint(this.jdbc);
		return CATALOGUE.stream()
			.filter((endpoint) -> endpoint.access() == Access.OPEN)
			.map((endpoint) -> DynamicTest.dynamicTest(endpoint.key(), () -> {
				Assumptions.assumeTrue(served.contains(endpoint.key()), endpoint.key() + " is not served yet");
				Api.Response response = send(endpoint, null, fixtures);
				assertThat(response.status()).as(endpoint.key() + ": " + response).isBetween(200, 399);
				assertThat(EveryTable.fingerprint(this.jdbc)).as("tables after " + endpoint.key()).isEqualTo(before);
			}));
	}

	/**
	 * Paths that a router might take for a protected endpoint while an access rule takes
	 * them for an open one or none (dot segments behind an open prefix, encodings, a
	 * trailing slash, case, matrix parameters, the token in the query string): without a
	 * token they are refused or rejected, with a worker's token they reach nothing a
	 * worker may not reach, and nothing is written either way.
	 */
	@TestFactory
	Stream<DynamicTest> pathTricksReachNothingProtected() {
		Fixtures fixtures = fixtures();
		Map<String, String> before = EveryTable.fingerprint(this.jdbc);
		List<String> tricks = List.of("GET /tokens/", "GET //tokens", "GET /TOKENS", "GET /tokens;x=1", "GET /tokens/.",
				"GET /./tokens", "GET /actuator/health/../../tokens", "GET /actuator/health/%2e%2e/%2e%2e/tokens",
				"GET /actuator/health/..;/..;/tokens", "GET /actuator/health/%2E%2E/consistency",
				"GET /actuator/health/../consistency", "GET /v3/api-docs/../../tokens", "GET /swagger-ui/../tokens",
				"GET /console/../tokens", "GET /console/%2e%2e/tokens", "GET /console/..%2ftokens",
				"GET /actuator/health%2f..%2f..%2ftokens", "GET /tokens?access_token={adminToken}", "POST /tokens/",
				"POST /console/../tokens", "POST /actuator/health/../../items", "POST /claims/",
				"POST /leases/{lease}/complete/", "POST /leases/{lease}/complete;x=1",
				"POST /leases/{lease}/./complete", "DELETE /tokens/{operatorTokenId}/");
		List<DynamicTest> tests = new ArrayList<>();
		for (String trick : tricks) {
			String method = trick.substring(0, trick.indexOf(' '));
			String path = trick.substring(trick.indexOf(' ') + 1);
			String body = switch (method) {
				case "POST" -> path.startsWith("/leases/") ? "{\"epoch\":{epoch},\"result\":{\"by\":\"intruder\"}}"
						: path.endsWith("items") ? "{\"title\":\"written by an intruder\"}" : path.startsWith("/claims")
								? "{\"workerId\":\"{workerA}\"}" : "{\"name\":\"intruder\",\"role\":\"admin\"}";
				default -> null;
			};
			Endpoint endpoint = new Endpoint(method + " " + path, Access.AUTHENTICATED, path, body);
			tests.add(DynamicTest.dynamicTest(trick + " without a token", () -> {
				Api.Response response = send(endpoint, null, fixtures);
				// 404: Tomcat refuses some dot-segment forms itself, before any filter
				// runs.
				assertThat(response.status()).as(trick + ": " + response).isIn(400, 401, 404);
				assertProblemIfAnyBody(response, trick);
				assertNoSecrets(response, fixtures, trick);
				assertThat(EveryTable.fingerprint(this.jdbc)).as("tables after " + trick).isEqualTo(before);
			}));
			tests.add(DynamicTest.dynamicTest(trick + " with another worker's token", () -> {
				Api.Response response = send(endpoint, fixtures.resolve("Bearer {workerBToken}"), fixtures);
				assertThat(response.status()).as(trick + ": " + response).isIn(400, 403, 404, 405);
				assertProblemIfAnyBody(response, trick);
				assertNoSecrets(response, fixtures, trick);
				assertThat(EveryTable.fingerprint(this.jdbc)).as("tables after " + trick).isEqualTo(before);
			}));
		}
		return tests.stream();
	}

	/**
	 * The methods nobody lists: HEAD runs a GET's handler and OPTIONS answers for any
	 * mapped path. Without a token both are refused on every protected path; with another
	 * worker's token a HEAD gets no further than the GET would.
	 */
	@TestFactory
	Stream<DynamicTest> headAndOptionsAreGuardedLikeTheRest() {
		Fixtures fixtures = fixtures();
		Set<String> served = served();
		Map<String, String> before = EveryTable.fingerprint(this.jdbc);
		List<DynamicTest> tests = new ArrayList<>();
		for (Endpoint endpoint : CATALOGUE) {
			if (endpoint.access() == Access.OPEN || !served.contains(endpoint.key())) {
				continue;
			}
			for (String method : List.of("HEAD", "OPTIONS")) {
				Endpoint other = new Endpoint(method + " " + endpoint.key().substring(endpoint.key().indexOf(' ') + 1),
						endpoint.access(), endpoint.path(), null);
				tests.add(DynamicTest.dynamicTest(method + " " + endpoint.path() + " without a token", () -> {
					Api.Response response = send(other, null, fixtures);
					assertThat(response.status()).as(other.key() + ": " + response).isEqualTo(401);
					assertThat(response.header("WWW-Authenticate")).as(other.key()).startsWith("Bearer");
					assertThat(EveryTable.fingerprint(this.jdbc)).as("tables after " + other.key()).isEqualTo(before);
				}));
			}
			if (endpoint.key().startsWith("GET ") && expectation(endpoint.access(), Kind.OTHER_WORKER) != null) {
				Endpoint head = new Endpoint("HEAD " + endpoint.key().substring(4), endpoint.access(), endpoint.path(),
						null);
				tests.add(DynamicTest.dynamicTest("HEAD " + endpoint.path() + " with another worker's token", () -> {
					Api.Response response = send(head, fixtures.resolve("Bearer {workerBToken}"), fixtures);
					assertThat(response.status()).as(head.key() + ": " + response).isEqualTo(403);
				}));
			}
		}
		return tests.stream();
	}

	/**
	 * The samples are real requests: each read is answered for its rightful caller, so a
	 * refusal above is about who asked, not about what was asked.
	 */
	@TestFactory
	Stream<DynamicTest> samplesOfReadsSucceedForTheirRightfulCaller() {
		Fixtures fixtures = fixtures();
		Set<String> served = served();
		return CATALOGUE.stream()
			.filter((endpoint) -> endpoint.body() == null && endpoint.key().startsWith("GET ")
					&& endpoint.access() != Access.OPEN)
			.map((endpoint) -> DynamicTest.dynamicTest(endpoint.key(), () -> {
				Assumptions.assumeTrue(served.contains(endpoint.key()), endpoint.key() + " is not served yet");
				String token = switch (endpoint.access()) {
					case ITEM_READ, LEASE_READ -> fixtures.workerA().token();
					case ADMIN -> ADMIN_TOKEN;
					default -> fixtures.operator().token();
				};
				Api.Response response = send(endpoint, "Bearer " + token, fixtures);
				if (endpoint.access() == Access.AUTHENTICATED) {
					assertThat(response.status()).as(endpoint.key() + ": " + response).isIn(200, 404);
				}
				else {
					assertThat(response.status()).as(endpoint.key() + ": " + response).isEqualTo(200);
				}
			}));
	}

	/** Who calls, and how they present themselves. */
	enum Kind {

		/** No usable credentials: every protected endpoint answers 401. */
		UNAUTHENTICATED,
		/** A valid worker token of a worker that holds nothing here. */
		OTHER_WORKER,
		/** The valid token of the worker that holds the fixture lease. */
		HOLDER, OPERATOR, ADMIN,
		/** A token of role events that may send only events of another name. */
		OTHER_EVENTS,
		/** A token of role events that may send the catalogue's events. */
		EVENTS

	}

	record Identity(String name, Kind kind, String header) {

		String authorization(Fixtures fixtures) {
			return (this.header != null) ? fixtures.resolve(this.header) : null;
		}

	}

	private static List<Identity> identities() {
		String basic = Base64.getEncoder().encodeToString(("admin:" + ADMIN_TOKEN).getBytes(StandardCharsets.UTF_8));
		return List.of(new Identity("no Authorization header", Kind.UNAUTHENTICATED, null),
				new Identity("Basic credentials with the admin token as password", Kind.UNAUTHENTICATED,
						"Basic " + basic),
				new Identity("the admin token without a scheme", Kind.UNAUTHENTICATED, "{adminToken}"),
				new Identity("Bearer without a token", Kind.UNAUTHENTICATED, "Bearer"),
				new Identity("Bearer and two spaces", Kind.UNAUTHENTICATED, "Bearer  "),
				new Identity("Bearer with two words", Kind.UNAUTHENTICATED, "Bearer a b"),
				new Identity("the admin token followed by a second word", Kind.UNAUTHENTICATED,
						"Bearer {adminToken} x"),
				new Identity("Bearer with characters a token never has", Kind.UNAUTHENTICATED, "Bearer wg_<$>;,\"{}"),
				new Identity("an unknown token", Kind.UNAUTHENTICATED, "Bearer {unknownToken}"),
				new Identity("the operator token with its last character changed", Kind.UNAUTHENTICATED,
						"Bearer {alteredOperatorToken}"),
				new Identity("the operator token cut short", Kind.UNAUTHENTICATED, "Bearer {truncatedOperatorToken}"),
				new Identity("a revoked admin token", Kind.UNAUTHENTICATED, "Bearer {revokedAdminToken}"),
				new Identity("a revoked token of the holding worker", Kind.UNAUTHENTICATED,
						"Bearer {revokedHolderToken}"),
				new Identity("another worker's token", Kind.OTHER_WORKER, "Bearer {workerBToken}"),
				new Identity("another worker's token limited to the fixtures' queue", Kind.OTHER_WORKER,
						"Bearer {scopedWorkerBToken}"),
				new Identity("the holding worker's token", Kind.HOLDER, "Bearer {workerAToken}"),
				new Identity("an operator token", Kind.OPERATOR, "Bearer {operatorToken}"),
				new Identity("an admin token", Kind.ADMIN, "Bearer {adminToken}"),
				new Identity("an events token", Kind.EVENTS, "Bearer {eventsToken}"),
				new Identity("an events token limited to the catalogue's event name", Kind.EVENTS,
						"Bearer {scopedEventsToken}"),
				new Identity("an events token limited to another event name", Kind.OTHER_EVENTS,
						"Bearer {otherEventsToken}"));
	}

	/**
	 * What this caller must get from an endpoint with this access rule, or null if
	 * allowed.
	 */
	static Expected expectation(Access access, Kind kind) {
		if (access == Access.OPEN) {
			return null;
		}
		if (kind == Kind.UNAUTHENTICATED) {
			return Expected.UNAUTHENTICATED;
		}
		boolean events = kind == Kind.EVENTS || kind == Kind.OTHER_EVENTS;
		boolean forbidden = switch (access) {
			case OPEN, AUTHENTICATED -> false;
			case OPERATOR -> kind == Kind.OTHER_WORKER || kind == Kind.HOLDER || events;
			case ITEM_READ, LEASE_READ -> kind == Kind.OTHER_WORKER || events;
			case LEASE_WRITE, CLAIM -> kind != Kind.HOLDER;
			case BATCH_COMPLETION, WORKER -> kind == Kind.OPERATOR || kind == Kind.ADMIN || events;
			case ADMIN -> kind != Kind.ADMIN;
			case EVENTS -> kind == Kind.OTHER_WORKER || kind == Kind.HOLDER || kind == Kind.OTHER_EVENTS;
		};
		if (forbidden) {
			return Expected.FORBIDDEN;
		}
		if (access == Access.BATCH_COMPLETION && kind == Kind.OTHER_WORKER) {
			return Expected.FORBIDDEN_ENTRY;
		}
		return null;
	}

	record Expected(int status, String code, boolean perEntry) {

		static final Expected UNAUTHENTICATED = new Expected(401, "unauthenticated", false);

		static final Expected FORBIDDEN = new Expected(403, "forbidden", false);

		static final Expected FORBIDDEN_ENTRY = new Expected(403, "forbidden", true);

		@Override
		public String toString() {
			return (this.perEntry ? "200 with a " : "") + this.status + " " + this.code
					+ (this.perEntry ? " entry" : "");
		}

	}

	private static void assertRefused(Api.Response response, Expected expected, Fixtures fixtures, String what) {
		assertThat(response.status()).as(what + ": " + response).isEqualTo(expected.status());
		assertThat(response.header("Content-Type")).as(what).startsWith("application/problem+json");
		assertProblem(response.body(), expected, what);
		if (expected.status() == 401) {
			assertThat(response.header("WWW-Authenticate")).as(what + ": WWW-Authenticate").startsWith("Bearer");
		}
		assertNoSecrets(response, fixtures, what);
	}

	private static void assertProblemIfAnyBody(Api.Response response, String what) {
		if (!response.raw().body().isEmpty()) {
			assertThat(response.header("Content-Type")).as(what).startsWith("application/problem+json");
		}
	}

	private static void assertEntryRefused(Api.Response response, Expected expected, Fixtures fixtures, String what) {
		assertThat(response.status()).as(what + ": " + response).isEqualTo(200);
		JsonNode entry = response.body().path("results").path(0);
		assertThat(entry.path("status").asInt()).as(what + ": " + response).isEqualTo(expected.status());
		assertProblem(entry.path("problem"), expected, what);
		assertNoSecrets(response, fixtures, what);
	}

	private static void assertProblem(JsonNode problem, Expected expected, String what) {
		assertThat(problem.path("code").asString()).as(what + ": " + problem).isEqualTo(expected.code());
		assertThat(problem.path("status").asInt()).as(what).isEqualTo(expected.status());
		assertThat(problem.path("type").asString()).as(what).isEqualTo("urn:workgraph:problem:" + expected.code());
		assertThat(problem.path("title").asString()).as(what).isNotBlank();
		assertThat(problem.path("detail").asString()).as(what).isNotBlank();
	}

	private static void assertNoSecrets(Api.Response response, Fixtures fixtures, String what) {
		String everything = response.raw().body() + " " + response.raw().headers().map();
		for (String secret : fixtures.secrets()) {
			assertThat(everything).as(what + " echoes a token").doesNotContain(secret);
		}
		for (String internal : INTERNALS) {
			assertThat(response.raw().body()).as(what + " leaks internals").doesNotContain(internal);
		}
	}

	/** {@code METHOD pattern} of everything Spring MVC dispatches to. */
	private Set<String> served() {
		Set<String> keys = new TreeSet<>();
		for (RequestMappingInfoHandlerMapping mapping : this.context
			.getBeansOfType(RequestMappingInfoHandlerMapping.class)
			.values()) {
			for (RequestMappingInfo info : mapping.getHandlerMethods().keySet()) {
				Set<String> methods = new TreeSet<>();
				info.getMethodsCondition().getMethods().forEach((method) -> methods.add(method.name()));
				if (methods.isEmpty()) {
					methods.add("*");
				}
				for (String pattern : info.getPatternValues()) {
					methods.forEach((method) -> keys.add(method + " " + pattern));
				}
			}
		}
		for (AbstractUrlHandlerMapping mapping : this.context.getBeansOfType(AbstractUrlHandlerMapping.class)
			.values()) {
			mapping.getHandlerMap().keySet().forEach((pattern) -> keys.add("* " + pattern));
		}
		return keys;
	}

	private Api.Response send(Endpoint endpoint, String authorization, Fixtures fixtures) {
		Map<String, String> headers = new LinkedHashMap<>();
		if (authorization != null) {
			headers.put("Authorization", authorization);
		}
		byte[] body = null;
		if (endpoint.body() != null) {
			headers.put("Content-Type", "application/json");
			body = fixtures.resolve(endpoint.body()).getBytes(StandardCharsets.UTF_8);
		}
		return this.api.raw(endpoint.method(), fixtures.resolve(endpoint.path()), body, headers);
	}

	/**
	 * Tokens of every role, a revoked admin token and a revoked token of the holding
	 * worker; two items, one depending on the other; a third leased by worker A, with an
	 * open attention request on its lease.
	 */
	private Fixtures fixtures() {
		String run = UUID.randomUUID().toString().substring(0, 8);
		Issued operator = issue("catalogue-operator-" + run, "operator", null);
		String workerA = "catalogue-worker-a-" + run;
		Issued holder = issue("catalogue-worker-a-" + run, "worker", workerA);
		Issued other = issue("catalogue-worker-b-" + run, "worker", "catalogue-worker-b-" + run);
		// Limited to the queue every fixture is in: the scope grants nothing a worker
		// token does not already have.
		Api.Response scoped = bootstrapAdmin().post("/tokens", Map.of("name", "catalogue-scoped-worker-b-" + run,
				"role", "worker", "workerId", "catalogue-worker-b-" + run, "queues", List.of("default")));
		assertThat(scoped.status()).as(scoped.toString()).isEqualTo(201);
		String scopedToken = scoped.body().path("token").asString();
		String eventsToken = issueEvents("catalogue-events-" + run, null);
		String scopedEventsToken = issueEvents("catalogue-scoped-events-" + run, List.of("deploy.done", "ci.finished"));
		String otherEventsToken = issueEvents("catalogue-other-events-" + run, List.of("deploy.done"));
		Issued revokedAdmin = issue("catalogue-revoked-admin-" + run, "admin", null);
		Issued revokedHolder = issue("catalogue-revoked-worker-a-" + run, "worker", workerA);
		revoke(revokedAdmin);
		revoke(revokedHolder);

		Api operatorCaller = as(operator);
		UUID leasedItem = created(operatorCaller.post("/items", Map.of("title", "leased", "priority", 1000)));
		Api.Response claimed = as(holder).post("/claims", Map.of("workerId", workerA));
		assertThat(claimed.status()).as(claimed.toString()).isEqualTo(201);
		JsonNode claim = claimed.body();
		assertThat(itemId(claim)).isEqualTo(leasedItem);
		UUID item = created(operatorCaller.post("/items", Map.of("title", "ready")));
		UUID blockedItem = created(
				operatorCaller.post("/items", Map.of("title", "blocked", "dependsOn", List.of(item.toString()))));
		UUID attention = created(as(holder).post("/leases/" + leaseId(claim) + "/attention-requests",
				Map.of("epoch", epoch(claim), "question", "which way?", "blocking", false)));

		// A webhook written directly (no host is allowed here), disabled, so that no
		// dispatcher touches it while the tests compare tables.
		UUID webhook = UUID.randomUUID();
		this.jdbc.sql("""
				insert into webhooks (id, url, secret, cursor, disabled_at, disabled_reason)
				select :id, 'https://hooks.example.com/catalogue', 'whsec_MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIz', last_seq,
				       now(), 'a fixture' from change_counter
				""").param("id", webhook).update();

		String operatorToken = operator.token();
		char last = operatorToken.charAt(operatorToken.length() - 1);
		Map<String, String> values = new LinkedHashMap<>();
		values.put("{item}", item.toString());
		values.put("{blockedItem}", blockedItem.toString());
		values.put("{leasedItem}", leasedItem.toString());
		values.put("{lease}", leaseId(claim).toString());
		values.put("{epoch}", Long.toString(epoch(claim)));
		values.put("{attention}", attention.toString());
		values.put("{workerA}", workerA);
		values.put("{operatorTokenId}", operator.id());
		values.put("{webhook}", webhook.toString());
		values.put("{unknown}", "01890000-0000-7000-8000-00000000dead");
		values.put("{adminToken}", ADMIN_TOKEN);
		values.put("{operatorToken}", operatorToken);
		values.put("{workerAToken}", holder.token());
		values.put("{workerBToken}", other.token());
		values.put("{scopedWorkerBToken}", scopedToken);
		values.put("{eventsToken}", eventsToken);
		values.put("{scopedEventsToken}", scopedEventsToken);
		values.put("{otherEventsToken}", otherEventsToken);
		values.put("{revokedAdminToken}", revokedAdmin.token());
		values.put("{revokedHolderToken}", revokedHolder.token());
		values.put("{unknownToken}",
				"wg_" + Base64.getUrlEncoder()
					.withoutPadding()
					.encodeToString(UUID.randomUUID().toString().repeat(2).getBytes(StandardCharsets.US_ASCII))
					.substring(0, 43));
		values.put("{alteredOperatorToken}",
				operatorToken.substring(0, operatorToken.length() - 1) + ((last == 'A') ? 'B' : 'A'));
		values.put("{truncatedOperatorToken}", operatorToken.substring(0, operatorToken.length() - 1));
		List<String> secrets = List.of(ADMIN_TOKEN, operatorToken, holder.token(), other.token(), scopedToken,
				eventsToken, scopedEventsToken, otherEventsToken, revokedAdmin.token(), revokedHolder.token());
		return new Fixtures(values, secrets, operator, holder);
	}

	private static UUID created(Api.Response response) {
		assertThat(response.status()).as(response.toString()).isEqualTo(201);
		return response.id();
	}

	private static Endpoint endpoint(String key, Access access, String path, String body) {
		return new Endpoint(key, access, path, body);
	}

	/**
	 * One endpoint as its handler mapping names it ({@code METHOD pattern}, {@code *} for
	 * any method), its access rule, and a sample request.
	 */
	record Endpoint(String key, Access access, String path, String body) {

		String method() {
			String method = this.key.substring(0, this.key.indexOf(' '));
			return method.equals("*") ? "GET" : method;
		}

	}

	/** A token of role events, limited to {@code names} unless null; its secret. */
	private String issueEvents(String name, List<String> names) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("name", name);
		body.put("role", "events");
		if (names != null) {
			body.put("eventNames", names);
		}
		Api.Response issued = bootstrapAdmin().post("/tokens", body);
		assertThat(issued.status()).as(issued.toString()).isEqualTo(201);
		return issued.body().path("token").asString();
	}

	record Fixtures(Map<String, String> values, List<String> secrets, Issued operator, Issued workerA) {

		String resolve(String text) {
			String resolved = text;
			for (Map.Entry<String, String> value : this.values.entrySet()) {
				resolved = resolved.replace(value.getKey(), value.getValue());
			}
			return resolved;
		}

	}

	private static String webjarVersion(String webjar) {
		String resource = "/META-INF/maven/org.webjars/" + webjar + "/pom.properties";
		try (java.io.InputStream in = AccessCatalogueTests.class.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("no " + resource + " on the class path");
			}
			java.util.Properties properties = new java.util.Properties();
			properties.load(in);
			return properties.getProperty("version");
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

}
