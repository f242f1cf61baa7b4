package dev.workgraph.clients;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.workgraph.testing.InstalledTools;
import dev.workgraph.testing.RepositoryRoot;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;

import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Python client's own tests ({@code clients/python}, {@code python3 -m unittest
 * discover}) against this service: access control on, with the bootstrap admin token in
 * {@code WORKGRAPH_ADMIN_TOKEN} (the tests mint their worker tokens with it), and the
 * reaper running, since the tests let leases expire and be granted again. Their output is
 * streamed here; the test fails when they fail or skip any test.
 *
 * <p>
 * The context is closed after this class, so that its reaper does not go on recording
 * expiries in the tests that come after it, which share the database.
 */
@TestPropertySource(properties = { "workgraph.security.enabled=true",
		"workgraph.security.bootstrap-admin-token=" + PythonClientTests.ADMIN_TOKEN,
		"workgraph.lease.reaper-enabled=true" })
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class PythonClientTests extends ServiceTest {

	static final String ADMIN_TOKEN = "python-client-tests-bootstrap-admin-token";

	private static final Pattern RAN = Pattern.compile("^Ran (\\d+) tests? in ", Pattern.MULTILINE);

	private static final Pattern VERSION = Pattern.compile("Python (\\d+)\\.(\\d+)");

	@Test
	void thePythonClientsTestsPassAgainstTheRunningService() throws Exception {
		String python = python311();
		Path project = RepositoryRoot.path().resolve("clients/python");
		ProcessBuilder builder = new ProcessBuilder(python, "-m", "unittest", "discover", "-v")
			.directory(project.toFile())
			.redirectErrorStream(true);
		Map<String, String> environment = builder.environment();
		environment.put("WORKGRAPH_URL", "http://127.0.0.1:" + this.port);
		environment.put("WORKGRAPH_ADMIN_TOKEN", ADMIN_TOKEN);
		environment.put("PYTHONPATH", project.resolve("src").toString());
		environment.put("PYTHONDONTWRITEBYTECODE", "1"); // no __pycache__ in the checkout
		environment.put("PYTHONUNBUFFERED", "1");
		Process process = builder.start();
		StringBuilder output = new StringBuilder();
		Thread reader = Thread.ofPlatform().start(() -> stream(process, output));
		boolean finished = process.waitFor(10, TimeUnit.MINUTES);
		if (!finished) {
			process.destroyForcibly();
		}
		reader.join(TimeUnit.SECONDS.toMillis(10));
		String text;
		synchronized (output) {
			text = output.toString();
		}
		assertThat(finished).as("the Python tests finish within 10 minutes:\n" + text).isTrue();
		assertThat(process.exitValue()).as("the Python tests pass:\n" + text).isZero();
		Matcher ran = RAN.matcher(text);
		assertThat(ran.find()).as("unittest's summary:\n" + text).isTrue();
		assertThat(Integer.parseInt(ran.group(1))).as("tests run").isGreaterThanOrEqualTo(40);
		assertThat(text).as("no test was skipped: each needs the service this test gives them")
			.doesNotContain("skipped=");
	}

	/** Streams the tests' output to this test's log as it comes, and keeps it. */
	private static void stream(Process process, StringBuilder output) {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = lines.readLine(); line != null; line = lines.readLine()) {
				System.out.println("[python] " + line);
				synchronized (output) {
					output.append(line).append('\n');
				}
			}
		}
		catch (IOException ex) {
			synchronized (output) {
				output.append("(reading the output failed: ").append(ex).append(")\n");
			}
		}
	}

	/**
	 * {@code python3} when it is 3.11 or newer; otherwise the test is skipped (failed in
	 * CI).
	 */
	private static String python311() throws IOException, InterruptedException {
		Path python = InstalledTools.onPath("python3");
		if (python == null) {
			InstalledTools.missing("No python3 on the PATH: the Python client's tests are skipped");
		}
		Process version = new ProcessBuilder(python.toString(), "--version").redirectErrorStream(true).start();
		String answer = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
		version.waitFor(30, TimeUnit.SECONDS);
		Matcher matcher = VERSION.matcher(answer);
		boolean recent = matcher.find() && (Integer.parseInt(matcher.group(1)) > 3
				|| (Integer.parseInt(matcher.group(1)) == 3 && Integer.parseInt(matcher.group(2)) >= 11));
		if (!recent) {
			InstalledTools.missing("The Python client needs Python 3.11 or newer, and " + python + " is '" + answer
					+ "': the Python client's tests are skipped");
		}
		assertThat(Files.isDirectory(RepositoryRoot.path().resolve("clients/python/tests"))).isTrue();
		return python.toString();
	}

}
