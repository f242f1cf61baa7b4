package dev.workgraph.testing;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;

/**
 * Programs some tests run (PgBouncer, wrk) that a developer's machine may lack. Outside
 * CI a missing one skips those tests; under {@code CI=true} it fails them, since
 * {@code .ci/run} installs them all.
 */
public final class InstalledTools {

	private InstalledTools() {
	}

	/**
	 * Whether this run is CI's ({@code CI=true}), where no test may be skipped for a
	 * missing tool.
	 */
	public static boolean inCi() {
		return "true".equalsIgnoreCase(System.getenv("CI"));
	}

	/** The first executable of this name on the {@code PATH}, or null. */
	public static Path onPath(String name) {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String entry : path.split(":")) {
			Path candidate = Path.of(entry, name);
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	/**
	 * Skips the test, or fails it in CI.
	 * @param message what is missing, ending in what "are skipped"
	 */
	public static void missing(String message) {
		if (inCi()) {
			throw new IllegalStateException(message.replace("are skipped", "cannot run, and CI must run them"));
		}
		Assumptions.abort(message);
	}

}
