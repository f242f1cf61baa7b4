package dev.workgraph.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The repository's files as its users get them, without build output, dependencies and
 * tool directories.
 */
final class RepositoryFiles {

	/** Directories that are never part of the repository's content. */
	private static final Set<String> EXCLUDED_DIRECTORIES = Set.of("target", "node_modules", ".git", ".idea", ".vscode",
			".workgraph");

	private RepositoryFiles() {
	}

	static boolean isExcludedDirectory(String name) {
		return EXCLUDED_DIRECTORIES.contains(name);
	}

	/**
	 * The repository's files: what git tracks plus new files it does not ignore, or,
	 * where git cannot tell (no git, not a clone), every file outside the excluded
	 * directories. Either way nothing under an excluded directory.
	 */
	static List<Path> list(Path root) {
		List<Path> files = gitFiles(root);
		if (files == null) {
			files = walk(root);
		}
		return files.stream()
			.filter((file) -> Files.isRegularFile(file))
			.filter((file) -> !inExcludedDirectory(root.relativize(file)))
			.sorted()
			.toList();
	}

	static List<Path> markdown(Path root) {
		return list(root).stream().filter((file) -> file.getFileName().toString().endsWith(".md")).toList();
	}

	private static boolean inExcludedDirectory(Path relative) {
		for (int i = 0; i < relative.getNameCount() - 1; i++) {
			if (isExcludedDirectory(relative.getName(i).toString())) {
				return true;
			}
		}
		return false;
	}

	static List<Path> walk(Path root) {
		try (Stream<Path> paths = Files.walk(root)) {
			return paths.filter(Files::isRegularFile)
				.filter((file) -> !inExcludedDirectory(root.relativize(file)))
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The files git lists, or null when git is not there or this is not a clone. */
	private static List<Path> gitFiles(Path root) {
		if (!Files.exists(root.resolve(".git"))) {
			return null;
		}
		try {
			Process git = new ProcessBuilder("git", "-C", root.toString(), "ls-files", "-z", "--cached", "--others",
					"--exclude-standard")
				.redirectError(ProcessBuilder.Redirect.DISCARD)
				.start();
			byte[] output = git.getInputStream().readAllBytes();
			if (!git.waitFor(1, TimeUnit.MINUTES) || git.exitValue() != 0) {
				return null;
			}
			return Arrays.stream(new String(output, StandardCharsets.UTF_8).split("\0"))
				.filter((name) -> !name.isEmpty())
				.map(root::resolve)
				.toList();
		}
		catch (IOException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

}
