package dev.workgraph.webhook;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.workgraph.testing.InstalledTools;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Standard Webhooks reference verifier for JavaScript ({@code standardwebhooks} from
 * npm), installed on first use into a cache directory outside the build
 * ({@code ~/.cache/work-graph/}, or {@code $XDG_CACHE_HOME/work-graph/}). Without node
 * and npm the tests that need it are skipped (failed in CI).
 */
final class StandardWebhooksVerifier {

	/** Pinned, so that an unchanged build verifies the same way. */
	static final String VERSION = "1.3.0";

	/** Verifies each message of the JSON array in argv[2]; prints one verdict a line. */
	private static final String SCRIPT = """
			const { Webhook } = require('standardwebhooks');
			const messages = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
			for (const m of messages) {
			  try {
			    new Webhook(m.secret).verify(m.body, {
			      'webhook-id': m.id, 'webhook-timestamp': m.timestamp, 'webhook-signature': m.signature });
			    console.log('verified');
			  } catch (e) {
			    console.log('refused: ' + e.message);
			  }
			}
			""";

	private final Path directory;

	private StandardWebhooksVerifier(Path directory) {
		this.directory = directory;
	}

	static StandardWebhooksVerifier installed() throws IOException, InterruptedException {
		if (InstalledTools.onPath("node") == null || InstalledTools.onPath("npm") == null) {
			InstalledTools.missing("node and npm are not installed, so the Standard Webhooks reference verifier's "
					+ "tests are skipped (install Node.js 20 or later)");
		}
		String cacheHome = System.getenv("XDG_CACHE_HOME");
		Path cache = ((cacheHome != null && !cacheHome.isBlank()) ? Path.of(cacheHome)
				: Path.of(System.getProperty("user.home"), ".cache"))
			.resolve("work-graph")
			.resolve("standardwebhooks-" + VERSION);
		if (!Files.isRegularFile(cache.resolve("node_modules/standardwebhooks/package.json"))) {
			Files.createDirectories(cache);
			String output = run(cache, List.of("npm", "install", "--no-audit", "--no-fund", "--prefix",
					cache.toString(), "standardwebhooks@" + VERSION));
			if (!Files.isRegularFile(cache.resolve("node_modules/standardwebhooks/package.json"))) {
				throw new IllegalStateException("npm could not install standardwebhooks@" + VERSION + ":\n" + output);
			}
		}
		Files.writeString(cache.resolve("verify.js"), SCRIPT, StandardCharsets.UTF_8);
		return new StandardWebhooksVerifier(cache);
	}

	/** One verdict per message: {@code verified} or {@code refused: <why>}. */
	List<String> verify(String secret, List<Receiver.Received> messages) throws IOException, InterruptedException {
		Path input = Files.createTempFile("webhooks", ".json");
		try {
			List<Map<String, String>> rows = messages.stream()
				.map((m) -> Map.of("secret", secret, "id", m.id(), "timestamp", m.timestamp(), "signature",
						m.signature(), "body", m.body()))
				.toList();
			Files.writeString(input, JsonMapper.builder().build().writeValueAsString(rows), StandardCharsets.UTF_8);
			return run(this.directory,
					List.of("node", this.directory.resolve("verify.js").toString(), input.toString()))
				.lines()
				.toList();
		}
		finally {
			Files.deleteIfExists(input);
		}
	}

	private static String run(Path directory, List<String> command) throws IOException, InterruptedException {
		Path output = Files.createTempFile("standardwebhooks", ".out");
		try {
			Process process = new ProcessBuilder(command).directory(directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(output.toFile())
				.start();
			if (!process.waitFor(5, TimeUnit.MINUTES)) {
				process.destroyForcibly();
				throw new IllegalStateException(String.join(" ", command) + " did not finish in 5 minutes");
			}
			return Files.readString(output, StandardCharsets.UTF_8);
		}
		finally {
			Files.deleteIfExists(output);
		}
	}

}
