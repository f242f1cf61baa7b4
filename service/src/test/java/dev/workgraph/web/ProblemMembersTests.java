package dev.workgraph.web;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.Problems;
import dev.workgraph.problem.RequestRejected;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.ProblemBodies;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.type.filter.AssignableTypeFilter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Every problem the service answers keeps RFC 9457's members to themselves: no key is
 * repeated, and no extension member takes the name of {@code type}, {@code title},
 * {@code status}, {@code detail} or {@code instance} (nor of the API's {@code code} and
 * {@code errors}). A second {@code status} would hide the HTTP status from every JSON
 * parser. The bad-input catalogue checks the same on each of its problems.
 */
class ProblemMembersTests extends LeaseTestSupport {

	/**
	 * Only a failing database or an overloaded service answers the first two; access
	 * control, off in this test, the others (the access tests check its problems; the cap
	 * on one token's waiting claims is ReadyWaitersTests', on its streams
	 * StreamsPerTokenTests').
	 */
	private static final Set<ProblemCode> NOT_PROVOKED_HERE = EnumSet.of(ProblemCode.SERVICE_UNAVAILABLE,
			ProblemCode.INTERNAL_ERROR, ProblemCode.UNAUTHENTICATED, ProblemCode.FORBIDDEN,
			ProblemCode.TOO_MANY_WAITING_CLAIMS, ProblemCode.TOO_MANY_STREAMS);

	@Test
	void everyProblemCodeTheApiAnswersHasEachMemberOnce() {
		Map<String, Api.Response> answers = new LinkedHashMap<>();
		UUID unknown = UUID.fromString("01890000-0000-7000-8000-00000000dead");

		UUID cancelled = createItem("cancel me twice");
		assertOk(operatorCancel(cancelled, "first"));
		answers.put("cancel a cancelled item", operatorCancel(cancelled, "again"));

		UUID dependency = createItem("dependency", "priority", -200);
		UUID dependent = createItem("dependent", "priority", 50);
		JsonNode onDependent = claim("problem-worker");
		assertThat(itemId(onDependent)).isEqualTo(dependent);
		assertThat(this.api.post("/items/" + dependent + "/dependencies", Map.of("dependsOn", dependency.toString()))
			.status()).isEqualTo(201);
		answers.put("complete with an unmet dependency", complete(onDependent));
		assertOk(release(onDependent));
		answers.put("write under an ended lease", renew(onDependent, null));

		UUID parentWithChild = createItem("parent under lease", "priority", 900);
		JsonNode onParent = claim("problem-worker");
		assertThat(itemId(onParent)).isEqualTo(parentWithChild);
		createItem("late child", "parentId", parentWithChild.toString(), "queue", "elsewhere");
		answers.put("complete with an open child", complete(onParent));
		answers.put("write with another epoch",
				this.api.post("/leases/" + leaseId(onParent) + "/renew", Map.of("epoch", epoch(onParent) + 7)));
		JsonNode asked = askForAttention(onParent, "which way?", false).body();
		UUID request = UUID.fromString(asked.path("id").asString());
		assertOk(resolve(request, "left"));
		answers.put("resolve twice", resolve(request, "right"));
		answers.put("reschedule a leased item",
				this.api.patch("/items/" + parentWithChild, Map.of("notBefore", "2030-01-01T00:00:00Z")));
		expireLease(leaseId(onParent));
		answers.put("write under an expired lease", renew(onParent, null));

		answers.put("depend on itself", this.api.post("/items/" + parentWithChild + "/dependencies",
				Map.of("dependsOn", parentWithChild.toString())));
		assertThat(this.api.post("/items", Map.of("title", "once"), Map.of("Idempotency-Key", "k-1")).status())
			.isEqualTo(201);
		answers.put("reuse an idempotency key",
				this.api.post("/items", Map.of("title", "twice"), Map.of("Idempotency-Key", "k-1")));
		answers.put("unknown item", this.api.get("/items/" + unknown));
		answers.put("unknown lease", this.api.get("/leases/" + unknown));
		answers.put("unknown attention request", this.api.post("/attention-requests/" + unknown + "/resolve",
				Map.of("resolution", "r", "resolvedBy", "b")));
		answers.put("unknown dependency edge", this.api.delete("/items/" + dependent + "/dependencies/" + unknown));
		answers.put("validation", this.api.post("/items", Map.of("title", "")));
		answers.put("malformed", this.api.post("/items", "{"));
		answers.put("media type",
				this.api.raw("POST", "/items", "{}".getBytes(), Map.of("Content-Type", "text/plain")));
		answers.put("not acceptable", this.api.raw("GET", "/items", null, Map.of("Accept", "text/csv")));
		answers.put("method", this.api.delete("/claims"));
		answers.put("too large", this.api.raw("POST", "/items", BadInputCatalogueTests.oversizedJson(11 << 20),
				Map.of("Content-Type", "application/json")));

		Set<ProblemCode> answered = EnumSet.noneOf(ProblemCode.class);
		answers.forEach((what, response) -> {
			assertThat(response.header("Content-Type")).as(what + ": " + response)
				.startsWith("application/problem+json");
			JsonNode problem = ProblemBodies.assertWellFormed(response.raw().body(), response.status(), what);
			answered.add(ProblemCode.valueOf(problem.path("code").asString().toUpperCase(java.util.Locale.ROOT)));
		});
		assertThat(answered).containsAll(EnumSet.complementOf(EnumSet.copyOf(NOT_PROVOKED_HERE)));
	}

	@Test
	void aTerminalItemsStatusIsNamedItemStatus() {
		UUID item = createItem("finished");
		assertOk(operatorCancel(item, "first"));
		Api.Response again = operatorCancel(item, "again");
		assertProblem(again, 409, "item_terminal");
		JsonNode problem = ProblemBodies.assertWellFormed(again.raw().body(), 409, again.toString());
		assertThat(ProblemBodies.extensionMembers(problem)).containsExactly("itemId", "itemStatus");
		assertThat(problem.path("itemStatus").asString()).isEqualTo("cancelled");
		assertThat(problem.path("itemId").asString()).isEqualTo(item.toString());
	}

	@Test
	void everyKindOfRefusalNamesItsMembersApartFromTheProblemsOwn() throws Exception {
		List<Class<?>> refusals = refusalTypes();
		assertThat(refusals).hasSizeGreaterThanOrEqualTo(10);
		for (Class<?> type : refusals) {
			for (Constructor<?> constructor : type.getDeclaredConstructors()) {
				constructor.setAccessible(true);
				RequestRejected rejected;
				try {
					rejected = (RequestRejected) constructor.newInstance(sampleArguments(constructor));
				}
				catch (InvocationTargetException ex) {
					throw new AssertionError(type.getSimpleName() + " cannot be built: " + ex.getCause(), ex);
				}
				assertThat(rejected.properties().keySet()).as(type.getSimpleName())
					.doesNotContainAnyElementsOf(Problems.RESERVED_MEMBERS);
			}
		}
	}

	@Test
	void anExtensionMemberCannotTakeAProblemsOwnName() {
		for (String reserved : Problems.RESERVED_MEMBERS) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> new RequestRejected(ProblemCode.ITEM_TERMINAL, "d").with(reserved, "x"));
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RequestRejected(ProblemCode.NOT_FOUND, "d").with("itemId", 1).with("itemId", 2));
	}

	@Test
	void problemsWrittenBeforeSpringMvcRunsHaveEachMemberOnce() {
		for (ProblemCode code : ProblemCode.values()) {
			ProblemBodies.assertWellFormed(Problems.json(code, "a \"quoted\" detail"), code.status().value(),
					code.code());
		}
	}

	private static List<Class<?>> refusalTypes() throws ClassNotFoundException {
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false) {
			@Override
			protected boolean isCandidateComponent(
					org.springframework.beans.factory.annotation.AnnotatedBeanDefinition definition) {
				return definition.getMetadata().isConcrete();
			}
		};
		scanner.addIncludeFilter(new AssignableTypeFilter(RequestRejected.class));
		List<Class<?>> types = new ArrayList<>();
		for (BeanDefinition candidate : scanner.findCandidateComponents("dev.workgraph")) {
			Class<?> type = Class.forName(candidate.getBeanClassName());
			if (!type.getName().contains("Test")) {
				types.add(type);
			}
		}
		return types;
	}

	private static Object[] sampleArguments(Constructor<?> constructor) {
		Class<?>[] types = constructor.getParameterTypes();
		Object[] arguments = new Object[types.length];
		for (int i = 0; i < types.length; i++) {
			Class<?> type = types[i];
			arguments[i] = (type == UUID.class) ? UUID.randomUUID()
					: (type == String.class) ? "sample"
							: (type == long.class || type == Long.class) ? 1L
									: (type == int.class || type == Integer.class) ? 1
											: (type == Duration.class) ? Duration.ofSeconds(1)
													: (type == List.class) ? List.of()
															: (type == ProblemCode.class)
																	? ProblemCode.VALIDATION_FAILED
																	: type.isEnum() ? type.getEnumConstants()[0] : null;
		}
		return arguments;
	}

}
