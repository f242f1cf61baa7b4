package dev.workgraph.mcp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.workgraph.testing.InstalledTools;

/**
 * The MCP Inspector's command line ({@code @modelcontextprotocol/inspector} from npm, run
 * with {@code --cli}): an MCP client that is not ours. Installed on first use into
 * {@code ~/.cache/work-graph/} (or {@code $XDG_CACHE_HOME/work-graph/}), outside the
 * build. Without node and npm the test that needs it is skipped (failed in CI).
 */
final class InspectorCli {

	/** Pinned: a later release may change its options or its output. */
	static final String VERSION = "2.12.0";

	private final Path executable;

	private InspectorCli(Path executable) {
		this.executable = executable;
	}

	static InspectorCli installed() throws IOException, InterruptedException {
		if (InstalledTools.onPath("node") == null || InstalledTools.onPath("npm") == null) {
			InstalledTools.missing("node and npm are not installed, so the MCP Inspector's test is skipped"
					+ " (install Node.js 20 or later)");
		}
		String cacheHome = System.getenv("XDG_CACHE_HOME");
		Path cache = ((cacheHome != null && !cacheHome.isBlank()) ? Path.of(cacheHome)
				: Path.of(System.getProperty("user.home"), ".cache"))
			.resolve("work-graph")
			.resolve("mcp-inspector-" + VERSION);
		Path executable = cache.resolve("node_modules/.bin/mcp-inspector");
		if (!Files.isExecutable(executable)) {
			Files.createDirectories(cache);
			String install = run(cache, List.of("npm", "install", "--no-audit", "--no-fund", "--prefix",
					cache.toString(), "@modelcontextprotocol/inspector@" + VERSION));
			if (!Files.isExecutable(executable)) {
				throw new IllegalStateException("npm could not install the MCP Inspector " + VERSION + ":\n" + install);
			}
		}
		return new InspectorCli(executable);
	}

	/**
	 * Calls one MCP method on a Streamable HTTP server with a bearer token, and answers
	 * what the Inspector printed (JSON when it succeeded).
	 */
	String call(String url, String token, String method, Path workDirectory) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of(this.executable.toString(), "--cli", url, "--transport", "http",
				"--method", method, "--header", "Authorization: Bearer " + token));
		return run(workDirectory, command);
	}

	private static String run(Path directory, List<String> command) throws IOException, InterruptedException {
		ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
		// Its catalogue of servers goes into the test's directory, not the user's home.
		builder.environment().put("MCP_CATALOG_PATH", directory.resolve("mcp.json").toString());
		Process process = builder.start();
		byte[] output = process.getInputStream().readAllBytes();
		if (!process.waitFor(5, TimeUnit.MINUTES)) {
			process.destroyForcibly();
			throw new IllegalStateException(String.join(" ", command) + " did not finish in 5 minutes");
		}
		return "exit code " + process.exitValue() + "\n" + new String(output, StandardCharsets.UTF_8);
	}

}
