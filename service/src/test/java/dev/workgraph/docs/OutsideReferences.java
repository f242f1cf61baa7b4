package dev.workgraph.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Finds text that points users at material they do not have: the design folder the
 * project was specified in, kept outside the repository. The repository's own documents
 * ({@code docs/http-api.md}, {@code docs/adr/}) are where such references must point.
 */
final class OutsideReferences {

	/**
	 * Spelled in pieces so that this file does not mention them itself; matched ignoring
	 * case.
	 */
	static final List<String> MENTIONS = List.of(".." + "/shared", "shared" + "/design", "shared" + "/seed",
			"contract" + " §", "performance" + "-notes");

	private static final int BINARY_PROBE_BYTES = 8000;

	private OutsideReferences() {
	}

	/** Every mention in the given text files, as {@code path:line: mentions 'x'}. */
	static List<String> in(Path root, List<Path> files) {
		List<String> found = new ArrayList<>();
		for (Path file : files) {
			byte[] bytes = read(file);
			if (isBinary(bytes)) {
				continue;
			}
			String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
			for (int i = 0; i < lines.length; i++) {
				String line = lines[i].toLowerCase(Locale.ROOT);
				for (String mention : MENTIONS) {
					if (line.contains(mention.toLowerCase(Locale.ROOT))) {
						found.add(root.relativize(file) + ":" + (i + 1) + ": mentions '" + mention + "'");
					}
				}
			}
		}
		return found;
	}

	private static boolean isBinary(byte[] bytes) {
		for (int i = 0; i < Math.min(bytes.length, BINARY_PROBE_BYTES); i++) {
			if (bytes[i] == 0) {
				return true;
			}
		}
		return false;
	}

	private static byte[] read(Path file) {
		try {
			return Files.readAllBytes(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
