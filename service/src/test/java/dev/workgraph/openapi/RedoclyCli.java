package dev.workgraph.openapi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.workgraph.testing.InstalledTools;

/**
 * Redocly CLI ({@code @redocly/cli} from npm), installed on first use into a cache
 * directory outside the build ({@code ~/.cache/work-graph/}, or
 * {@code $XDG_CACHE_HOME/work-graph/}), so {@code mvn clean} does not fetch it again.
 * Without node and npm the tests that need it are skipped (failed in CI, where the
 * workflow sets node up).
 */
final class RedoclyCli {

	/** Pinned, so that a new rule in a later release cannot fail an unchanged build. */
	static final String VERSION = "2.77.0";

	private final Path executable;

	private RedoclyCli(Path executable) {
		this.executable = executable;
	}

	/** The installed CLI; skips the calling test when node or npm is missing. */
	static RedoclyCli installed() throws IOException, InterruptedException {
		if (InstalledTools.onPath("node") == null || InstalledTools.onPath("npm") == null) {
			InstalledTools.missing("node and npm are not installed, so the API document's lint tests are skipped"
					+ " (install Node.js 20 or later)");
		}
		String cacheHome = System.getenv("XDG_CACHE_HOME");
		Path cache = ((cacheHome != null && !cacheHome.isBlank()) ? Path.of(cacheHome)
				: Path.of(System.getProperty("user.home"), ".cache"))
			.resolve("work-graph")
			.resolve("redocly-cli-" + VERSION);
		Path executable = cache.resolve("node_modules/.bin/redocly");
		if (!Files.isExecutable(executable)) {
			Files.createDirectories(cache);
			Result install = run(cache, List.of("npm", "install", "--no-audit", "--no-fund", "--prefix",
					cache.toString(), "@redocly/cli@" + VERSION));
			if (install.exitCode() != 0 || !Files.isExecutable(executable)) {
				throw new IllegalStateException("npm could not install @redocly/cli@" + VERSION + ":\n" + install);
			}
		}
		return new RedoclyCli(executable);
	}

	/** Lints a document with Redocly's recommended rules; the JSON report. */
	Result lint(Path document) throws IOException, InterruptedException {
		return run(document.getParent(), List.of(this.executable.toString(), "lint", "--extends=recommended",
				"--format=json", document.toString()));
	}

	private static Result run(Path directory, List<String> command) throws IOException, InterruptedException {
		Path output = Files.createTempFile("redocly", ".out");
		try {
			ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
				.redirectErrorStream(false)
				.redirectOutput(output.toFile())
				.redirectError(ProcessBuilder.Redirect.DISCARD);
			Map<String, String> environment = builder.environment();
			environment.put("REDOCLY_TELEMETRY", "off");
			environment.put("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true");
			Process process = builder.start();
			if (!process.waitFor(5, TimeUnit.MINUTES)) {
				process.destroyForcibly();
				throw new IllegalStateException(String.join(" ", command) + " did not finish in 5 minutes");
			}
			return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
		}
		finally {
			Files.deleteIfExists(output);
		}
	}

	/**
	 * What a command printed on its standard output, and how it ended.
	 *
	 * @param exitCode its exit code
	 * @param output its standard output
	 */
	record Result(int exitCode, String output) {

		@Override
		public String toString() {
			return "exit code " + this.exitCode + ":\n" + this.output;
		}

	}

}
