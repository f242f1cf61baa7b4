package dev.workgraph.docs;

/**
 * A link as written in a Markdown file, and the (1-based) line its target is on.
 */
record MarkdownLink(String target, int line) {
}
