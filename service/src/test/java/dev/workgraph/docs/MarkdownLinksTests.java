package dev.workgraph.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.workgraph.testing.RepositoryRoot;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The repository stands on its own: its Markdown links resolve inside it, and no file
 * sends a reader to the design material the project was specified in, which users do not
 * have.
 */
class MarkdownLinksTests {

	private final Path root = RepositoryRoot.path();

	@Test
	void everyMarkdownLinkResolvesToAFileOrHeadingInsideTheRepository() {
		List<Path> markdown = RepositoryFiles.markdown(this.root);
		assertThat(markdown).as("Markdown files found under " + this.root)
			.contains(this.root.resolve("README.md"), this.root.resolve("docs/http-api.md"));

		assertThat(markdown.stream().mapToInt((file) -> Markdown.links(read(file)).size()).sum())
			.as("links found (a parser that finds none would pass vacuously)")
			.isGreaterThan(100);

		List<String> broken = new MarkdownLinkChecker(this.root).brokenLinks(markdown);

		assertThat(broken).as("broken links (file:line: [target] why):%n%s", String.join("\n", broken)).isEmpty();
	}

	@Test
	void noFileMentionsDesignMaterialOutsideTheRepository() {
		List<Path> files = RepositoryFiles.list(this.root);
		assertThat(files).as("files found under " + this.root).contains(this.root.resolve("pom.xml"));

		List<String> mentions = OutsideReferences.in(this.root, files);

		assertThat(mentions)
			.as("mentions of material outside the repository; point at docs/http-api.md or docs/adr/ instead:%n%s",
					String.join("\n", mentions))
			.isEmpty();
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
