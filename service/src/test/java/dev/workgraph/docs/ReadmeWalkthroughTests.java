package dev.workgraph.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.workgraph.testing.ServiceTest;
import dev.workgraph.testing.RepositoryRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's {@code sh} blocks run as a reader would paste them: each in a fresh
 * terminal (a shell of its own, with only {@code WG_ADMIN_TOKEN} exported and accepted by
 * the service as the bootstrap admin token), with bash, curl and jq against this test's
 * service ({@code localhost:8080} becomes its port). Top to bottom, then again bottom to
 * top against the same database, since the README says they run in any order and again: a
 * block that leans on what another block set, or trips over what an earlier run left
 * behind, fails here.
 *
 * <p>
 * A block that cannot run here (it starts the service, needs Docker, builds the project)
 * is preceded by {@code <!-- not run by ReadmeWalkthroughTests: why -->}; every other
 * {@code sh} block runs.
 */
@TestPropertySource(properties = { "workgraph.security.enabled=true",
		"workgraph.security.bootstrap-admin-token=" + ReadmeWalkthroughTests.ADMIN_TOKEN })
class ReadmeWalkthroughTests extends ServiceTest {

	/**
	 * The access tests' bootstrap token too, so that both share one service (one Spring
	 * context).
	 */
	static final String ADMIN_TOKEN = "access-tests-bootstrap-admin-token";

	private static final Pattern SKIP = Pattern.compile("<!-- not run by ReadmeWalkthroughTests: (.+?) -->");

	@TempDir
	Path directory;

	@Test
	void eachWalkThroughRunsOnItsOwnInAnyOrderAndAgain() throws Exception {
		List<Block> blocks = blocks(Files.readString(RepositoryRoot.path().resolve("README.md")));
		List<Block> runnable = blocks.stream().filter((block) -> block.skipReason() == null).toList();
		assertThat(runnable).as("the README's walk-throughs").hasSizeGreaterThanOrEqualTo(4);
		StringBuilder first = new StringBuilder();
		for (Block block : runnable) {
			first.append(run(block));
		}
		StringBuilder second = new StringBuilder();
		for (Block block : runnable.reversed()) {
			second.append(run(block));
		}
		for (String output : List.of(first.toString(), second.toString())) {
			assertThat(output).doesNotContain("parse error").doesNotContain("curl: (");
			assertThat(output).contains("\"item\": \"Summarise the incident report\"");
			assertThat(output).contains("\"outcome\": \"decomposed\"");
			assertThat(output).contains("\"resolution\": \"Staging only this week.\"");
			assertThat(output).doesNotContain("\"item\": null");
			assertThat(output).as("waiting for CI")
				.contains("{\"item\":\"Merge the fix for #42\",\"epoch\":2,\"ci\":\"success\"}");
			assertThat(output).contains("{\"completed\":\"Thumbnail 4\",\"next\":\"Thumbnail 5\"}")
				.contains("{\"completed\":\"Thumbnail 5\",\"next\":null}");
			assertThat(output).as("the Python worker ran").contains("python worker: queue py-writing drained");
			assertThat(output).as("the MCP session by hand")
				.contains("[\"claim_work\",")
				.contains("{\"claimed\":true,\"item\":\"Name the release\"}")
				.contains("{\"completed\":true,\"status\":\"completed\",\"result\":{\"name\":\"Aurora\"}}");
		}
		assertThat(count("select count(*) from work_items where title = 'Migrate the billing service' "
				+ "and status = 'blocked'"))
			.as("each run decomposed its own item")
			.isEqualTo(2);
		assertThat(count("select count(*) from work_items where title = 'Summarise the incident report' "
				+ "and status = 'completed'"))
			.as("each run completed its own item")
			.isEqualTo(2);
		assertThat(
				count("select count(*) from work_items where title = 'Merge the fix for #42' and status = 'completed'"))
			.as("each run's wait was matched by its event and its item finished")
			.isEqualTo(2);
		assertThat(
				count("select count(*) from work_items where title = 'Rotate the API keys' and status = 'completed'"))
			.as("each run's question was answered and its item finished")
			.isEqualTo(2);
	}

	@Test
	void everyBlockThatDoesNotRunSaysWhy() throws IOException {
		String readme = Files.readString(RepositoryRoot.path().resolve("README.md"));
		List<Block> blocks = blocks(readme);
		assertThat(blocks.stream().filter((block) -> block.skipReason() != null))
			.allMatch((block) -> !block.skipReason().isBlank());
		Matcher markers = SKIP.matcher(readme);
		int count = 0;
		while (markers.find()) {
			count++;
		}
		assertThat(blocks.stream().filter((block) -> block.skipReason() != null).count())
			.as("every marker stands right before an sh block")
			.isEqualTo(count);
	}

	/** Runs one block in a shell of its own; what it printed. */
	private String run(Block block) throws IOException, InterruptedException {
		String script = "set -euo pipefail\necho '### README.md line " + block.line() + "'\n"
				+ block.text()
					.replace("http://localhost:8080", "http://127.0.0.1:" + this.port)
					.replace("localhost:8080", "127.0.0.1:" + this.port);
		Path file = Files.createTempFile(this.directory, "walkthrough", ".sh");
		Files.writeString(file, script);
		Path output = Files.createTempFile(this.directory, "walkthrough", ".out");
		ProcessBuilder builder = new ProcessBuilder("bash", file.toString()).redirectErrorStream(true)
			.redirectOutput(output.toFile())
			.directory(RepositoryRoot.path().toFile());
		builder.environment().put("WG_ADMIN_TOKEN", ADMIN_TOKEN);
		Process process = builder.start();
		boolean finished = process.waitFor(180, TimeUnit.SECONDS);
		if (!finished) {
			process.destroyForcibly();
		}
		String text = Files.readString(output, StandardCharsets.UTF_8);
		assertThat(finished).as("the block at README.md line " + block.line() + " finishes: " + text).isTrue();
		assertThat(process.exitValue())
			.as("the block at README.md line " + block.line() + " succeeds on its own:\n" + text)
			.isZero();
		return text;
	}

	/** The {@code sh} blocks, each with the reason it does not run (null if it does). */
	static List<Block> blocks(String markdown) {
		List<Block> blocks = new ArrayList<>();
		List<String> lines = markdown.lines().toList();
		String previous = "";
		for (int i = 0; i < lines.size(); i++) {
			String line = lines.get(i);
			if (line.strip().equals("```sh")) {
				int start = i + 1;
				StringBuilder text = new StringBuilder();
				for (i = start; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
					text.append(lines.get(i)).append('\n');
				}
				Matcher skip = SKIP.matcher(previous.strip());
				blocks.add(new Block(start, text.toString(), skip.matches() ? skip.group(1) : null));
				previous = "";
				continue;
			}
			if (!line.isBlank()) {
				previous = line;
			}
		}
		return blocks;
	}

	record Block(int line, String text, String skipReason) {
	}

}
