package dev.workgraph.docs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Just enough of CommonMark to find a document's links and the anchors GitHub gives its
 * headings. Code (fenced blocks and inline spans) is neither a link nor a heading.
 */
final class Markdown {

	private static final Pattern FENCE_OPENING = Pattern.compile("^ {0,3}(`{3,}|~{3,})(.*)$");

	/**
	 * {@code [text](target)} or {@code ![alt](target)}, with an optional title. The text
	 * may hold one level of brackets and span lines; the target may be in angle brackets
	 * or hold balanced parentheses.
	 */
	private static final Pattern INLINE_LINK = Pattern.compile("!?\\[(?:[^\\[\\]\\\\]|\\\\.|\\[[^\\[\\]]*\\])*\\]"
			+ "\\([ \\t]*\\n?[ \\t]*(<[^<>\\n]*>|(?:[^\\s()\\\\]|\\\\.|\\([^\\s()]*\\))*)"
			+ "(?:\\s+(?:\"[^\"]*\"|'[^']*'|\\([^()]*\\)))?[ \\t]*\\)");

	/** {@code [label]: target}; a footnote ({@code [^1]: text}) is not a link. */
	private static final Pattern REFERENCE_DEFINITION = Pattern
		.compile("^ {0,3}\\[(?!\\^)(?:[^\\]\\\\]|\\\\.)+\\]:[ \\t]*(<[^<>\\n]*>|\\S+)", Pattern.MULTILINE);

	private static final Pattern ATX_HEADING = Pattern.compile("^ {0,3}#{1,6}(?:[ \\t]+(.*?))?(?:[ \\t]+#+)?[ \\t]*$");

	private static final Pattern SETEXT_UNDERLINE = Pattern.compile("^ {0,3}(?:=+|-+)[ \\t]*$");

	/** Lines that cannot be the last line of a paragraph under a setext underline. */
	private static final Pattern NOT_PARAGRAPH_TEXT = Pattern
		.compile("^(?: {4}|\\s*(?:[#>|]|[-*+][ \\t]|\\d+[.)][ \\t]))");

	private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s[^>]*\\b(?:name|id)\\s*=\\s*\"([^\"]+)\"",
			Pattern.CASE_INSENSITIVE);

	private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)(?<!`)\\1(?!`)");

	private static final Pattern IMAGE_OR_LINK = Pattern.compile("!?\\[([^\\]]*)\\](?:\\([^)]*\\)|\\[[^\\]]*\\])");

	private static final Pattern HTML_TAG = Pattern.compile("</?[A-Za-z][^>]*>");

	/** Emphasis markers; an underscore inside a word ({@code max_seconds}) is text. */
	private static final Pattern EMPHASIS = Pattern.compile("\\*+|~~|(?<![\\p{L}\\p{N}])_+|_+(?![\\p{L}\\p{N}])");

	private static final Pattern BACKSLASH_ESCAPE = Pattern.compile("\\\\(\\p{Punct})");

	/** What GitHub removes from a heading's text to make its anchor. */
	private static final Pattern NOT_IN_SLUG = Pattern.compile("[^\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\- ]");

	private Markdown() {
	}

	/** Every inline link, image and reference definition, in document order. */
	static List<MarkdownLink> links(String markdown) {
		String text = withoutCode(normalized(markdown));
		List<MarkdownLink> links = new ArrayList<>();
		Matcher inline = INLINE_LINK.matcher(text);
		while (inline.find()) {
			links.add(new MarkdownLink(unbracketed(inline.group(1)), lineOf(text, inline.start(1))));
		}
		Matcher reference = REFERENCE_DEFINITION.matcher(text);
		while (reference.find()) {
			links.add(new MarkdownLink(unbracketed(reference.group(1)), lineOf(text, reference.start(1))));
		}
		links.sort((a, b) -> Integer.compare(a.line(), b.line()));
		return links;
	}

	/**
	 * The anchors a link may point at: each heading's slug (a repeated slug gets
	 * {@code -1}, {@code -2}, … as on GitHub) and explicit {@code <a name>} or
	 * {@code <a id>} anchors.
	 */
	static Set<String> anchors(String markdown) {
		List<String> lines = List.of(normalized(markdown).split("\n", -1));
		boolean[] code = fencedLines(lines);
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		for (int i = 0; i < lines.size(); i++) {
			if (code[i]) {
				continue;
			}
			String heading = headingAt(lines, code, i);
			if (heading != null) {
				String slug = slug(heading);
				int repeats = seen.merge(slug, 1, Integer::sum) - 1;
				anchors.add((repeats == 0) ? slug : slug + "-" + repeats);
			}
			Matcher html = HTML_ANCHOR.matcher(lines.get(i));
			while (html.find()) {
				anchors.add(html.group(1));
			}
		}
		return anchors;
	}

	/** The anchor GitHub gives a heading with this (Markdown) text. */
	static String slug(String heading) {
		String text = NOT_IN_SLUG.matcher(plainText(heading).strip().toLowerCase(Locale.ROOT)).replaceAll("");
		return text.replace(' ', '-');
	}

	/**
	 * The heading's text as rendered: code spans verbatim, links and images reduced to
	 * their text, emphasis, tags and escapes removed.
	 */
	static String plainText(String inline) {
		StringBuilder plain = new StringBuilder();
		Matcher code = CODE_SPAN.matcher(inline);
		int at = 0;
		while (code.find()) {
			plain.append(plainProse(inline.substring(at, code.start()))).append(code.group(2).strip());
			at = code.end();
		}
		return plain.append(plainProse(inline.substring(at))).toString();
	}

	private static String plainProse(String prose) {
		String text = IMAGE_OR_LINK.matcher(prose).replaceAll("$1");
		text = HTML_TAG.matcher(text).replaceAll("");
		text = EMPHASIS.matcher(text).replaceAll("");
		text = BACKSLASH_ESCAPE.matcher(text).replaceAll("$1");
		return text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"");
	}

	/**
	 * The text of the heading on line {@code i}, or null when that line is no heading.
	 */
	private static String headingAt(List<String> lines, boolean[] code, int i) {
		Matcher atx = ATX_HEADING.matcher(lines.get(i));
		if (atx.matches()) {
			return (atx.group(1) != null) ? atx.group(1) : "";
		}
		if (i == 0 || !SETEXT_UNDERLINE.matcher(lines.get(i)).matches()) {
			return null;
		}
		List<String> paragraph = new ArrayList<>();
		for (int j = i - 1; j >= 0 && !code[j] && !lines.get(j).isBlank(); j--) {
			if (NOT_PARAGRAPH_TEXT.matcher(lines.get(j)).find() || SETEXT_UNDERLINE.matcher(lines.get(j)).matches()) {
				break;
			}
			paragraph.addFirst(lines.get(j).strip());
		}
		return paragraph.isEmpty() ? null : String.join(" ", paragraph);
	}

	/** The text with every fenced code block and inline code span blanked out. */
	static String withoutCode(String markdown) {
		List<String> lines = List.of(markdown.split("\n", -1));
		boolean[] code = fencedLines(lines);
		StringBuilder text = new StringBuilder(markdown.length());
		for (int i = 0; i < lines.size(); i++) {
			text.append(code[i] ? " ".repeat(lines.get(i).length()) : lines.get(i));
			if (i < lines.size() - 1) {
				text.append('\n');
			}
		}
		blankCodeSpans(text);
		return text.toString();
	}

	/**
	 * Which lines are fences or inside a fenced block; a block left open runs to the end.
	 */
	private static boolean[] fencedLines(List<String> lines) {
		boolean[] code = new boolean[lines.size()];
		String closing = null;
		for (int i = 0; i < lines.size(); i++) {
			String line = lines.get(i);
			if (closing != null) {
				code[i] = true;
				if (line.matches(" {0,3}" + Pattern.quote(closing) + "\\" + closing.charAt(0) + "*[ \\t]*")) {
					closing = null;
				}
				continue;
			}
			Matcher opening = FENCE_OPENING.matcher(line);
			if (opening.matches() && !(opening.group(1).startsWith("`") && opening.group(2).contains("`"))) {
				closing = opening.group(1);
				code[i] = true;
			}
		}
		return code;
	}

	/**
	 * Blanks each code span (a run of backticks up to the next run of the same length,
	 * within one paragraph), keeping newlines so that line numbers stay right.
	 */
	private static void blankCodeSpans(StringBuilder text) {
		int i = 0;
		while (i < text.length()) {
			if (text.charAt(i) != '`' || (i > 0 && text.charAt(i - 1) == '\\')) {
				i++;
				continue;
			}
			int run = runOfBackticks(text, i);
			int close = closingRun(text, i + run, run);
			if (close < 0) {
				i += run;
				continue;
			}
			for (int j = i; j < close + run; j++) {
				if (text.charAt(j) != '\n') {
					text.setCharAt(j, ' ');
				}
			}
			i = close + run;
		}
	}

	private static int closingRun(StringBuilder text, int from, int length) {
		for (int j = from; j < text.length(); j++) {
			if (text.charAt(j) == '\n' && isBlankLineAfter(text, j)) {
				return -1;
			}
			if (text.charAt(j) == '`') {
				int run = runOfBackticks(text, j);
				if (run == length) {
					return j;
				}
				j += run - 1;
			}
		}
		return -1;
	}

	private static boolean isBlankLineAfter(StringBuilder text, int newline) {
		for (int j = newline + 1; j < text.length() && text.charAt(j) != '\n'; j++) {
			if (!Character.isWhitespace(text.charAt(j))) {
				return false;
			}
		}
		return true;
	}

	private static int runOfBackticks(CharSequence text, int from) {
		int end = from;
		while (end < text.length() && text.charAt(end) == '`') {
			end++;
		}
		return end - from;
	}

	private static String unbracketed(String target) {
		return (target.startsWith("<") && target.endsWith(">")) ? target.substring(1, target.length() - 1) : target;
	}

	private static int lineOf(String text, int offset) {
		int line = 1;
		for (int i = 0; i < offset; i++) {
			if (text.charAt(i) == '\n') {
				line++;
			}
		}
		return line;
	}

	private static String normalized(String markdown) {
		return markdown.replace("\r\n", "\n").replace('\r', '\n');
	}

}
