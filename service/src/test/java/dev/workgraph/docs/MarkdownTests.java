package dev.workgraph.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** How links are found, anchors made and targets checked, on small inputs. */
class MarkdownTests {

	@TempDir
	Path root;

	@Test
	void slugsAreMadeTheWayGitHubMakesThem() {
		assertThat(Markdown.slug("Which stale-lease code")).isEqualTo("which-stale-lease-code");
		assertThat(Markdown.slug("ADR 0000: Execution leases with fencing"))
			.isEqualTo("adr-0000-execution-leases-with-fencing");
		assertThat(Markdown.slug("What the 409s mean, and what to do")).isEqualTo("what-the-409s-mean-and-what-to-do");
		assertThat(Markdown.slug("`Idempotency-Key` header")).isEqualTo("idempotency-key-header");
		assertThat(Markdown.slug("The `max_seconds` and **bold** _words_")).isEqualTo("the-max_seconds-and-bold-words");
		assertThat(Markdown.slug("A [linked](other.md) heading")).isEqualTo("a-linked-heading");
		assertThat(Markdown.slug("Expiry — and crash (loop)")).isEqualTo("expiry--and-crash-loop");
		assertThat(Markdown.slug("Über naïve café")).isEqualTo("über-naïve-café");
		assertThat(Markdown.slug("Ship it 🚀")).isEqualTo("ship-it-");
		assertThat(Markdown.slug("1.4 / 2.0 & <b>more</b>")).isEqualTo("14--20--more");
	}

	@Test
	void anchorsAreTheHeadingsOutsideCodeWithRepeatsNumbered() {
		String markdown = """
				# Title
				## Usage ##
				```sh
				# not a heading
				```
				## Usage
				Setext heading
				==============

				Another one
				---
				- a list item
				---
				<a name="custom-anchor"></a>
				###### Usage
				""";

		assertThat(Markdown.anchors(markdown)).containsExactly("title", "usage", "usage-1", "setext-heading",
				"another-one", "custom-anchor", "usage-2");
	}

	@Test
	void linksAreFoundWithTheLineOfTheirTarget() {
		String markdown = """
				See [the API](docs/http-api.md#problems) and ![a diagram](img/x.png "Title").
				A link whose text
				[wraps over
				two lines](other.md).
				Angle brackets: [spaces](<my file.md>), parentheses: [p](a_(b).md).
				Not links: `[code](in-a-span.md)`, \\[escaped\\], [text] (spaced.md), [^1]: a footnote.
				```
				[fenced](in-a-block.md)
				```
				[ref]: reference/target.md "Its title"
				""";

		assertThat(Markdown.links(markdown)).containsExactly(new MarkdownLink("docs/http-api.md#problems", 1),
				new MarkdownLink("img/x.png", 1), new MarkdownLink("other.md", 4), new MarkdownLink("my file.md", 5),
				new MarkdownLink("a_(b).md", 5), new MarkdownLink("reference/target.md", 10));
	}

	@Test
	void codeSpansMayHoldBackticksAndNeverSpanAParagraph() {
		String markdown = """
				``a `tick` [x](one.md)`` then [y](two.md)
				an ` unclosed span

				[z](three.md) and `closed`
				""";

		assertThat(Markdown.links(markdown)).extracting(MarkdownLink::target).containsExactly("two.md", "three.md");
	}

	@Test
	void linksResolveOnlyToExistingFilesAndHeadingsInsideTheRoot() throws IOException {
		write("README.md", "# Work Graph\n## Quick start\n");
		write("docs/api.md", "# API\n## Problems\n");
		write("docs/notes.txt", "plain");
		write("service/target/built.md", "# Built\n");
		Path docs = this.root.resolve("docs/guide.md");
		MarkdownLinkChecker checker = new MarkdownLinkChecker(this.root);

		assertThat(checker.problem(docs, link("api.md"))).isEmpty();
		assertThat(checker.problem(docs, link("api.md#problems"))).isEmpty();
		assertThat(checker.problem(docs, link("../README.md#quick-start"))).isEmpty();
		assertThat(checker.problem(docs, link("./"))).isEmpty();
		assertThat(checker.problem(docs, link("notes.txt#L3"))).as("anchors of other files are not checked").isEmpty();
		assertThat(checker.problem(docs, link("https://example.com/x.md"))).isEmpty();
		assertThat(checker.problem(docs, link("mailto:ops@example.com"))).isEmpty();
		assertThat(checker.problem(this.root.resolve("README.md"), link("#quick-start"))).isEmpty();
		assertThat(checker.problem(this.root.resolve("README.md"), link("#"))).isEmpty();

		assertThat(checker.problem(docs, link("missing.md")))
			.hasValueSatisfying((why) -> assertThat(why).isEqualTo("points at docs/missing.md, which does not exist"));
		assertThat(checker.problem(docs, link("api.md#no-such-heading")))
			.hasValueSatisfying((why) -> assertThat(why).contains("#no-such-heading", "docs/api.md"));
		assertThat(checker.problem(docs, link("../../" + "shared" + "/design/contract.md")))
			.hasValue("points outside the repository");
		assertThat(checker.problem(docs, link("/docs/api.md")))
			.hasValueSatisfying((why) -> assertThat(why).startsWith("is an absolute path"));
		assertThat(checker.problem(docs, link("../service/target/built.md")))
			.hasValueSatisfying((why) -> assertThat(why).contains("'target'"));
		assertThat(checker.problem(docs, link("file:///etc/passwd")))
			.hasValueSatisfying((why) -> assertThat(why).contains("'file:'"));
		assertThat(checker.problem(docs, link(""))).hasValue("has an empty target");
		assertThat(checker.problem(docs, link("api%ZZ.md")))
			.hasValueSatisfying((why) -> assertThat(why).startsWith("is not a valid link"));
	}

	@Test
	void percentEscapesInTargetsAndAnchorsAreDecoded() throws IOException {
		write("docs/my notes.md", "# Café au lait\n");
		MarkdownLinkChecker checker = new MarkdownLinkChecker(this.root);

		assertThat(checker.problem(this.root.resolve("README.md"), link("docs/my%20notes.md#caf%C3%A9-au-lait")))
			.isEmpty();
		assertThat(MarkdownLinkChecker.percentDecoded("a+b%2Bc")).isEqualTo("a+b+c");
	}

	@Test
	void brokenLinksAreReportedWithFileAndLine() throws IOException {
		Path readme = write("README.md", "# Title\n\nSee [api](docs/api.md)\nand [top](#title), [gone](#gone).\n");

		List<String> broken = new MarkdownLinkChecker(this.root).brokenLinks(List.of(readme));

		assertThat(broken).containsExactly("README.md:3: [docs/api.md] points at docs/api.md, which does not exist",
				"README.md:4: [#gone] points at #gone, which is no heading or anchor of README.md");
	}

	@Test
	void mentionsOfOutsideDesignMaterialAreFoundInTextFilesOnly() throws IOException {
		Path yaml = write("service/application.yml", "a: 1\n# see " + "Contract" + " §5\n");
		Path markdown = write("README.md", "The [contract](../" + "shared/" + "design/contract.md).\nFine text.\n");
		Path binary = this.root.resolve("image.png");
		Files.write(binary, ("\0PNG " + "performance" + "-notes").getBytes(StandardCharsets.UTF_8));

		List<String> mentions = OutsideReferences.in(this.root, List.of(yaml, markdown, binary));

		assertThat(mentions).containsExactly("service/application.yml:2: mentions '" + "contract" + " §'",
				"README.md:1: mentions '../" + "shared'", "README.md:1: mentions '" + "shared" + "/design'");
	}

	@Test
	void buildOutputAndToolDirectoriesAreNotPartOfTheRepository() throws IOException {
		Path kept = write("docs/a.md", "x");
		write("service/target/classes/b.md", "x");
		write("web/node_modules/c/README.md", "x");
		write(".workgraph/postgres/PG_VERSION", "17");

		assertThat(RepositoryFiles.walk(this.root)).containsExactly(kept);
	}

	private Path write(String path, String content) throws IOException {
		Path file = this.root.resolve(path);
		Files.createDirectories(file.getParent());
		return Files.writeString(file, content);
	}

	private static MarkdownLink link(String target) {
		return new MarkdownLink(target, 1);
	}

}
