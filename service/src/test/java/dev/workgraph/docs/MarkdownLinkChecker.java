package dev.workgraph.docs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decides whether a Markdown link resolves inside the repository: a relative path to a
 * file or directory that exists there (not in a build or tool directory), and, for a
 * Markdown target, an anchor that is one of its headings. Web and mail links are not
 * followed.
 */
final class MarkdownLinkChecker {

	private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

	private static final Set<String> EXTERNAL_SCHEMES = Set.of("http", "https", "mailto");

	private final Path root;

	private final Map<Path, Set<String>> anchors = new HashMap<>();

	MarkdownLinkChecker(Path root) {
		this.root = root.toAbsolutePath().normalize();
	}

	/** Why the link in {@code file} does not resolve, or empty when it does. */
	Optional<String> problem(Path file, MarkdownLink link) {
		String target = link.target();
		if (target.isEmpty()) {
			return Optional.of("has an empty target");
		}
		Matcher scheme = SCHEME.matcher(target);
		if (scheme.find()) {
			String name = target.substring(0, scheme.end() - 1).toLowerCase(Locale.ROOT);
			return EXTERNAL_SCHEMES.contains(name) ? Optional.empty()
					: Optional.of("uses '" + name + ":'; only http(s) and mailto links may leave the repository");
		}
		if (target.startsWith("//")) {
			return Optional.of("points outside the repository");
		}
		int hash = target.indexOf('#');
		String path = (hash < 0) ? target : target.substring(0, hash);
		String anchor = (hash < 0) ? null : target.substring(hash + 1);
		int query = path.indexOf('?');
		if (query >= 0) {
			path = path.substring(0, query);
		}
		String decodedPath;
		String decodedAnchor;
		try {
			decodedPath = percentDecoded(path);
			decodedAnchor = (anchor != null) ? percentDecoded(anchor) : null;
		}
		catch (IllegalArgumentException ex) {
			return Optional.of("is not a valid link: " + ex.getMessage());
		}
		if (decodedPath.startsWith("/") || decodedPath.startsWith("\\")) {
			return Optional.of("is an absolute path; link relative to the file instead");
		}
		Path source = file.toAbsolutePath().normalize();
		Path resolved = decodedPath.isEmpty() ? source : source.getParent().resolve(decodedPath).normalize();
		if (!resolved.startsWith(this.root)) {
			return Optional.of("points outside the repository");
		}
		Path relative = this.root.relativize(resolved);
		for (Path segment : relative) {
			if (RepositoryFiles.isExcludedDirectory(segment.toString())) {
				return Optional.of("points into '" + segment + "', which is not part of the repository");
			}
		}
		if (!Files.exists(resolved)) {
			return Optional.of("points at " + relative + ", which does not exist");
		}
		if (decodedAnchor != null && !decodedAnchor.isEmpty() && isMarkdown(resolved)
				&& !anchorsOf(resolved).contains(decodedAnchor)) {
			return Optional.of("points at #" + decodedAnchor + ", which is no heading or anchor of "
					+ (relative.toString().isEmpty() ? resolved.getFileName() : relative));
		}
		return Optional.empty();
	}

	private Set<String> anchorsOf(Path markdown) {
		return this.anchors.computeIfAbsent(markdown, (path) -> {
			try {
				return Markdown.anchors(Files.readString(path));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		});
	}

	private static boolean isMarkdown(Path path) {
		return Files.isRegularFile(path) && path.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".md");
	}

	/** Decodes %XX escapes as UTF-8 (unlike URLDecoder, a '+' stays a '+'). */
	static String percentDecoded(String text) {
		if (text.indexOf('%') < 0) {
			return text;
		}
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		StringBuilder decoded = new StringBuilder();
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '%') {
				if (i + 2 >= text.length()) {
					throw new IllegalArgumentException("'%' must be followed by two hex digits");
				}
				bytes.write(Integer.parseInt(hexDigits(text, i), 16));
				i += 2;
				continue;
			}
			flush(bytes, decoded);
			decoded.append(c);
		}
		flush(bytes, decoded);
		return decoded.toString();
	}

	private static String hexDigits(String text, int percent) {
		String digits = text.substring(percent + 1, percent + 3);
		if (!digits.matches("[0-9A-Fa-f]{2}")) {
			throw new IllegalArgumentException("'%" + digits + "' is not a percent-escape");
		}
		return digits;
	}

	private static void flush(ByteArrayOutputStream bytes, StringBuilder decoded) {
		if (bytes.size() > 0) {
			decoded.append(bytes.toString(StandardCharsets.UTF_8));
			bytes.reset();
		}
	}

	/**
	 * Every broken link of the given Markdown files, as {@code path:line: [target] why}.
	 */
	List<String> brokenLinks(List<Path> markdownFiles) {
		return markdownFiles.stream().flatMap((file) -> {
			String text;
			try {
				text = Files.readString(file);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			return Markdown.links(text)
				.stream()
				.flatMap((link) -> problem(file, link).stream()
					.map((why) -> this.root.relativize(file.toAbsolutePath().normalize()) + ":" + link.line() + ": ["
							+ link.target() + "] " + why));
		}).toList();
	}

}
