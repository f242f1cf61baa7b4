package dev.workgraph.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The complete worker the README shows is this module's {@link QuickstartWorker}, which
 * the build compiles: the README copy must match it line for line, and stay under 30
 * lines.
 */
class ReadmeQuickstartTests {

	private static final String MARKER = "<!-- quickstart-worker: examples/src/main/java/dev/workgraph/examples/QuickstartWorker.java -->";

	@Test
	void theReadmeShowsTheQuickstartWorkerAsItCompiles() throws IOException {
		List<String> readme = Files.readAllLines(Path.of("..", "README.md"), StandardCharsets.UTF_8);
		int marker = readme.indexOf(MARKER);
		assertThat(marker).as("the README marks the quickstart worker with %s", MARKER).isNotNegative();
		assertThat(readme.get(marker + 1)).isEqualTo("```java");
		int end = readme.subList(marker + 2, readme.size()).indexOf("```") + marker + 2;
		List<String> shown = normalized(readme.subList(marker + 2, end));
		List<String> source = Files.readAllLines(Path.of("src/main/java/dev/workgraph/examples/QuickstartWorker.java"),
				StandardCharsets.UTF_8);
		// The README leaves out the package line and the blank line after it.
		assertThat(source.get(0)).startsWith("package ");
		assertThat(shown).isEqualTo(normalized(source.subList(2, source.size())));
		assertThat(shown).as("lines of the complete worker").hasSizeLessThan(30);
	}

	private static List<String> normalized(List<String> lines) {
		return lines.stream().map((line) -> line.replace("\t", "    ").stripTrailing()).toList();
	}

}
