package dev.workgraph.examples;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the example agent says when it cannot start; the refusals of a real service are
 * tested against it (service module, {@code ExampleAgentAccessTests}).
 */
class AgentAccessTests {

	@Test
	void aServiceThatIsNotThereIsCalledUnreachableNotRefusing() {
		try (AgentAccess access = new AgentAccess("http://127.0.0.1:1", null, "an-admin-token")) {
			assertThatExceptionOfType(AgentAccess.Refused.class).isThrownBy(() -> access.worker("agent-1"))
				.withMessageStartingWith(
						"Could not reach Work Graph at http://127.0.0.1:1 to mint a worker token for agent-1: ")
				.withMessageEndingWith(". Is it running (./mvnw spring-boot:run)?");
		}
	}

}
