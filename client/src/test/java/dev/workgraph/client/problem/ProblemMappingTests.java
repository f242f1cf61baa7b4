package dev.workgraph.client.problem;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

class ProblemMappingTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	static Stream<Arguments> everyCode() {
		return Stream.of(Arguments.of("malformed_request", 400, MalformedRequest.class, false),
				Arguments.of("validation_failed", 422, ValidationFailed.class, false),
				Arguments.of("not_found", 404, NotFound.class, false),
				Arguments.of("dependency_cycle", 422, DependencyCycle.class, false),
				Arguments.of("item_terminal", 409, ItemTerminal.class, false),
				Arguments.of("open_children", 409, OpenChildren.class, false),
				Arguments.of("unmet_dependencies", 409, UnmetDependencies.class, false),
				Arguments.of("lease_expired", 409, LeaseExpired.class, false),
				Arguments.of("lease_ended", 409, LeaseEnded.class, false),
				Arguments.of("epoch_mismatch", 409, EpochMismatch.class, false),
				Arguments.of("already_resolved", 409, AlreadyResolved.class, false),
				Arguments.of("idempotency_conflict", 409, IdempotencyConflict.class, false),
				Arguments.of("payload_too_large", 413, PayloadTooLarge.class, false),
				Arguments.of("unsupported_media_type", 415, UnsupportedMediaType.class, false),
				Arguments.of("method_not_allowed", 405, MethodNotAllowed.class, false),
				Arguments.of("not_acceptable", 406, NotAcceptable.class, false),
				Arguments.of("unauthenticated", 401, Unauthenticated.class, false),
				Arguments.of("forbidden", 403, Forbidden.class, false),
				Arguments.of("service_unavailable", 503, ServiceUnavailable.class, true),
				Arguments.of("internal_error", 500, InternalServerError.class, true));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("everyCode")
	void eachCodeHasItsOwnException(String code, int status, Class<? extends RequestRejected> type,
			boolean transientFailure) {
		Problem problem = problem(Map.of("type", "urn:workgraph:problem:" + code, "title", "T", "status", status,
				"detail", "what happened", "code", code));
		RequestRejected rejected = RequestRejected.of(problem, null);
		assertThat(rejected).isExactlyInstanceOf(type);
		assertThat(rejected.code()).isEqualTo(code);
		assertThat(rejected.status()).isEqualTo(status);
		assertThat(rejected.isTransient()).isEqualTo(transientFailure);
		assertThat(rejected.getMessage()).isEqualTo(status + " " + code + ": what happened");
	}

	@Test
	void aCodeThisClientDoesNotKnowIsAPlainRejection() {
		RequestRejected rejected = RequestRejected
			.of(problem(Map.of("status", 409, "code", "something_new", "detail", "d")), null);
		assertThat(rejected).isExactlyInstanceOf(RequestRejected.class);
		assertThat(rejected.code()).isEqualTo("something_new");
	}

	@Test
	void answersWithoutACodeAreMappedByStatus() {
		assertThat(RequestRejected.of(Problem.synthesized(502, null, "bad gateway"), null))
			.isExactlyInstanceOf(ServiceUnavailable.class);
		assertThat(RequestRejected.of(Problem.synthesized(504, null, "x"), null))
			.isExactlyInstanceOf(ServiceUnavailable.class);
		assertThat(RequestRejected.of(Problem.synthesized(429, null, "x"), Duration.ofSeconds(3)))
			.isExactlyInstanceOf(RateLimited.class)
			.satisfies((rejected) -> assertThat(rejected.retryAfter()).contains(Duration.ofSeconds(3)));
		assertThat(RequestRejected.of(Problem.synthesized(401, null, "x"), null))
			.isExactlyInstanceOf(Unauthenticated.class);
		assertThat(RequestRejected.of(Problem.synthesized(403, null, "x"), null)).isExactlyInstanceOf(Forbidden.class);
		assertThat(RequestRejected.of(Problem.synthesized(404, null, "x"), null)).isExactlyInstanceOf(NotFound.class);
		assertThat(RequestRejected.of(Problem.synthesized(418, null, "x"), null))
			.isExactlyInstanceOf(RequestRejected.class);
	}

	@Test
	void leaseRejectionsCarryTheLeaseAndBothEpochs() {
		UUID leaseId = UUID.randomUUID();
		RequestRejected rejected = RequestRejected.of(problem(Map.of("status", 409, "code", "lease_expired", "leaseId",
				leaseId.toString(), "presentedEpoch", 3, "currentEpoch", 4)), null);
		assertThat(rejected).isInstanceOf(LeaseRejected.class);
		LeaseRejected lease = (LeaseRejected) rejected;
		assertThat(lease.leaseId()).isEqualTo(leaseId);
		assertThat(lease.presentedEpoch()).isEqualTo(3);
		assertThat(lease.currentEpoch()).isEqualTo(4);
	}

	@Test
	void validationFailuresNameTheirFields() {
		ValidationFailed failed = (ValidationFailed) RequestRejected
			.of(problem(Map.of("status", 422, "code", "validation_failed", "errors",
					new Object[] { Map.of("field", "waitSeconds", "message", "is not a known field"),
							Map.of("field", "children[3].title", "message", "must not be blank") })),
					null);
		assertThat(failed.errors()).containsExactly(
				new ValidationFailed.FieldError("waitSeconds", "is not a known field"),
				new ValidationFailed.FieldError("children[3].title", "must not be blank"));
		assertThat(failed.concerns("waitSeconds")).isTrue();
		assertThat(failed.concerns("queues")).isFalse();
	}

	@Test
	void cyclesAreListed() {
		DependencyCycle cycle = (DependencyCycle) RequestRejected.of(
				problem(Map.of("status", 422, "code", "dependency_cycle", "cycle", new String[] { "a", "b", "a" })),
				null);
		assertThat(cycle.cycle()).containsExactly("a", "b", "a");
	}

	@Test
	void aProblemRoundTripsThroughJsonWithItsExtraMembers() {
		Problem problem = problem(Map.of("type", "urn:workgraph:problem:lease_ended", "title", "Lease ended", "status",
				409, "detail", "d", "instance", "/leases/x/complete", "code", "lease_ended", "currentEpoch", 2));
		Problem again = JSON.readValue(JSON.writeValueAsString(problem), Problem.class);
		assertThat(again).isEqualTo(problem);
		assertThat(again.property("currentEpoch").asInt()).isEqualTo(2);
		assertThat(again.property("absent").isMissingNode()).isTrue();
	}

	private static Problem problem(Map<String, Object> members) {
		return Problem.fromJson((ObjectNode) JSON.valueToTree(members));
	}

}
