package dev.workgraph.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root: the directory that holds {@code mvnw}, above the module's. */
public final class RepositoryRoot {

	private RepositoryRoot() {
	}

	/** Walks up from the working directory to the directory that holds {@code mvnw}. */
	public static Path path() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("mvnw"))) {
				return dir;
			}
		}
		throw new IllegalStateException("No directory above " + Path.of("").toAbsolutePath() + " holds mvnw");
	}

}
