package dev.workgraph.examples;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ExampleAgentOptionsTests {

	@Test
	void everyOptionIsRead() {
		ExampleAgent.Options options = ExampleAgent.Options
			.parse(new String[] { "--url", "http://127.0.0.1:18400", "--admin-token", "a", "--token", "t",
					"--worker-id", "agent-1", "--queue", "q", "--concurrency", "3", "--lease-seconds", "9", "--seed" });
		assertThat(options)
			.isEqualTo(new ExampleAgent.Options("http://127.0.0.1:18400", "a", "t", "agent-1", "q", 3, 9, true));
	}

	@Test
	void defaultsSuitALocalService() {
		ExampleAgent.Options options = ExampleAgent.Options.parse(new String[0]);
		assertThat(options.queue()).isEqualTo("examples");
		assertThat(options.concurrency()).isEqualTo(2);
		assertThat(options.workerId()).startsWith("example-agent@");
		assertThat(options.seed()).isFalse();
	}

	@Test
	void mistakesAreExplained() {
		assertThatIllegalArgumentException().isThrownBy(() -> ExampleAgent.Options.parse(new String[] { "--queue" }))
			.withMessage("--queue needs a value");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ExampleAgent.Options.parse(new String[] { "--concurrency", "many" }))
			.withMessage("--concurrency needs a number, got many");
		assertThatIllegalArgumentException().isThrownBy(() -> ExampleAgent.Options.parse(new String[] { "--fast" }))
			.withMessage("Unknown option --fast");
	}

}
